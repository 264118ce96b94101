import type { Kysely } from 'kysely';
import type { SealedValueError } from '../../crypto/errors.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { recordAudit } from '../audit/audit.repository.js';
import { isUuid } from '../ids.js';
import { countNamedReports, listNamedReports, wasTold } from './named-bank.repository.js';
import { findPublicIdentifiers, findPublicReport } from './public-reports.repository.js';
import { referenceOf } from './reference.js';

/** Who reads a report naming their bank: the member's key or one of its people, for the trail. */
interface BankReader {
  companyId: string;
  keyId: string | null;
  userId: string | null;
  requestId: string;
}

/**
 * Public reports as the bank they name sees them (decision 0138). A published public report names
 * the bank or payment service that was used; the member linked to it is told (`public_report.published`),
 * and here it lists what it was told and reads one: what was reported, and the identifiers the
 * person gave of whoever cheated them, so the bank can find and stop the account. Never the
 * victim's or the sender's own details, nor the evidence: those stay with the operators.
 */
export function createNamedBankService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  onUnreadable: (error: SealedValueError) => void;
}) {
  const { db, identifiers } = deps;
  return {
    async list(companyId: string, query: { page: number; limit: number }) {
      const [rows, total] = await Promise.all([
        listNamedReports(db, companyId, { limit: query.limit, offset: (query.page - 1) * query.limit }),
        countNamedReports(db, companyId),
      ]);
      const data = rows.map((row) => ({
        id: row.id,
        reference: referenceOf(row.id),
        fraudType: row.fraud_type,
        financialInstitution: row.financial_institution,
        eventDate: row.event_date.toISOString(),
        // A report taken down since can no longer be read: the operators found it should not stand.
        status: row.status === 'published' ? ('published' as const) : ('taken_down' as const),
        toldAt: row.told_at.toISOString(),
      }));
      return { data, meta: { total, page: query.page, limit: query.limit } };
    },

    /** One report the member was told of, while it is published; anything else is the 404 of a random id. Audited. */
    async read(reader: BankReader, id: string) {
      const told = isUuid(id) && (await wasTold(db, reader.companyId, id.toLowerCase()));
      const row = told ? await findPublicReport(db, id.toLowerCase()) : undefined;
      if (row?.status !== 'published') throw AppError.notFound('Public report not found');
      const stored = await findPublicIdentifiers(db, [row.id]);
      const opened = identifiers.openEach(
        stored.map((i) => ({ id: i.id, label: i.label, value: i.value_token })),
        { companyId: row.company_id, recordId: row.id },
        deps.onUnreadable,
      );
      await recordAudit(db, { ...reader, action: 'public_read', reportId: row.id });
      return {
        id: row.id,
        reference: referenceOf(row.id),
        fraudType: row.fraud_type,
        // As search shows it to every member: the story with its numbers masked (they are listed below).
        fraudReason: row.fraud_reason_masked,
        financialInstitution: row.financial_institution,
        eventDate: row.event_date.toISOString(),
        publishedAt: (row.first_published_at ?? row.moderated_at ?? row.updated_at).toISOString(),
        identifiers: opened.map((i) => ({ label: i.label, value: i.unreadable ? null : i.value })),
      };
    },
  };
}

export type NamedBankService = ReturnType<typeof createNamedBankService>;
