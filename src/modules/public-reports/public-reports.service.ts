import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SealedValueError } from '../../crypto/errors.js';
import type { Keyring } from '../../crypto/keyring.js';
import { openSealedOrClear } from '../../crypto/sealed-or-clear.js';
import type { Database } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import type { IdentifierInput, SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { recordAudit } from '../audit/audit.repository.js';
import { PUBLIC_REPORTS_COMPANY_ID } from '../companies/public-reports-company.js';
import { parseIsoDate, whyNotADate } from '../dates.js';
import { isUuid } from '../ids.js';
import { checkFraudReason } from '../reports/fraud-reason.js';
import { maskFraudReason } from '../reports/reason-masking.js';
import { precheckReport } from '../reports/report-precheck.js';
import type { FraudType } from '../reports/report-values.js';
import { openReason, reasonContext } from '../reports/sealed-reason.js';
import type { SafelistCheck } from '../safelist/safelist.service.js';
import { trimmedText, unseenProblem, visibleLength } from '../trimmed-text.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { raisePublicReportPublished, raisePublicReportVisible, raisePublicReportWithdrawn } from '../webhooks/outbox.js';
import { type ContactDetails, type ContactInput, maskContact, normalizeContact } from './contact-details.js';
import type { Moderator } from './moderator.js';
import {
  PUBLIC_REPORT_LIMITS,
  type PublicReportStatus,
  REJECTION_REASON_LABEL,
  type ReportingEntity,
  type SenderStatus,
} from './public-report-values.js';
import * as repo from './public-reports.repository.js';
import { parseReference, referenceOf } from './reference.js';

export interface PublicReportInput {
  reportingEntity: ReportingEntity;
  fraudType: FraudType;
  fraudReason: string;
  financialInstitution: string;
  eventDate: string;
  identifiers: IdentifierInput[];
  attachments?: string[] | undefined;
  victim?: ContactInput | undefined;
  guestInfo?: Omit<ContactInput, 'amountLost' | 'currency'> | undefined;
}

type GuestDetails = Omit<ContactDetails, 'amountLost' | 'currency'>;

export type { Moderator } from './moderator.js';

/** A reporter's clock may run a little ahead of ours. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;
/** Nigeria's time zone (WAT, UTC+1, no daylight saving): a date-only eventDate may be today's date there. */
const WAT_OFFSET_MS = 60 * 60 * 1000;

/** An ISO date (midnight UTC) or date-time, not in the future; a date is compared as a whole day in Nigeria. */
function parseEventDate(value: string, errors: FieldError[]): Date {
  const parsed = parseIsoDate(value);
  if (!parsed) {
    errors.push({ field: 'eventDate', message: whyNotADate(value) });
    return new Date(Number.NaN);
  }
  if (parsed.date.getUTCFullYear() < 1900) {
    errors.push({ field: 'eventDate', message: 'must be in 1900 or later' });
    return parsed.date;
  }
  const { date } = parsed;
  const now = Date.now();
  const future = parsed.dateOnly
    ? value > new Date(now + WAT_OFFSET_MS).toISOString().slice(0, 10)
    : date.getTime() > now + CLOCK_SKEW_MS;
  if (future) errors.push({ field: 'eventDate', message: 'must not be in the future' });
  return date;
}

export function createPublicReportsService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  keyring: Keyring;
  attachments: ReportAttachments;
  /** Publishing a public report with a safelisted identifier is refused, as for company reports. */
  safelist: SafelistCheck;
  /** Told of each identifier whose token does not open (it is served marked `unreadable`). */
  onUnreadable: (error: SealedValueError) => void;
}) {
  const { db, identifiers, keyring, attachments } = deps;
  const companyId = PUBLIC_REPORTS_COMPANY_ID;

  function seal(details: ContactDetails | null, recordId: string, label: 'victim' | 'guestInfo') {
    if (details === null) return { token: null, masked: null };
    return { token: keyring.seal(JSON.stringify(details), { companyId, recordId, label }), masked: maskContact(details) };
  }

  /** The operators' reason for a rejection, sealed to the report (decision 0130). */
  const rejectionContext = (row: Pick<repo.PublicReportRow, 'company_id' | 'id'>) => ({
    companyId: row.company_id,
    recordId: row.id,
    label: REJECTION_REASON_LABEL,
  });

  function open(token: string | null, row: repo.PublicReportRow, label: 'victim' | 'guestInfo'): ContactDetails | null {
    if (token === null) return null;
    return JSON.parse(keyring.open(token, { companyId: row.company_id, recordId: row.id, label })) as ContactDetails;
  }

  /** The moderation view: identifier tokens and masked contacts, or (decoded) clear values. */
  async function view(row: repo.PublicReportRow, decoded = false) {
    const identifierRows = await repo.findPublicIdentifiers(db, [row.id]);
    return viewOf(row, identifierRows, decoded);
  }

  function viewOf(row: repo.PublicReportRow, identifierRows: repo.PublicIdentifierRow[], decoded: boolean) {
    return {
      id: row.id,
      reference: referenceOf(row.id),
      userId: null,
      // Sealed at rest like the contacts, and opened like them only in the audited read of one report:
      // a story often holds the suspect's number or BVN. Lists show it masked, as search does.
      fraudReason: decoded ? openReason(keyring, row) : row.fraud_reason_masked,
      fraudType: row.fraud_type,
      attachments: attachments.links(row.attachments),
      financialInstitution: row.financial_institution,
      eventDate: row.event_date.toISOString(),
      companyId: row.company_id,
      notificationSent: row.notification_sent,
      status: row.status,
      victim: (decoded ? open(row.victim_token, row, 'victim') : row.victim_masked) as Required<ContactDetails> | null,
      guestInfo: (decoded ? open(row.guest_info_token, row, 'guestInfo') : row.guest_info_masked) as GuestDetails | null,
      reportingEntity: row.reporting_entity,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
      identifiers: ((tokens) =>
        decoded ? identifiers.openEach(tokens, { companyId: row.company_id, recordId: row.id }, deps.onUnreadable) : tokens)(
        identifierRows.map((i) => ({ id: i.id, label: i.label, value: i.value_token })),
      ),
      rejectionReason: openSealedOrClear(keyring, row.rejection_reason_token, row.rejection_reason, () => rejectionContext(row)),
      moderatedAt: row.moderated_at?.toISOString() ?? null,
    };
  }

  async function requireReport(id: string, trx: Kysely<Database> = db, forUpdate = false) {
    const row = isUuid(id) ? await repo.findPublicReport(trx, id.toLowerCase(), forUpdate) : undefined;
    if (!row) throw AppError.notFound('Public report not found');
    return row;
  }

  async function decide(moderator: Moderator, id: string, next: 'published' | 'rejected', reason?: string) {
    return db.transaction().execute(async (trx) => {
      const row = await requireReport(id, trx, true);
      if (row.status === next) throw new AppError('INVALID_STATE', `The public report is already ${next}`);
      if (row.status === 'rejected') throw new AppError('INVALID_STATE', 'A rejected public report cannot be published');
      if (next === 'published') await deps.safelist.checkStoredPublic(trx, row.id);
      const updated = await repo.setModeration(trx, row.id, {
        status: next,
        rejection_reason_token:
          next === 'rejected'
            ? keyring.seal(trimmedText('reason', reason ?? '', PUBLIC_REPORT_LIMITS.rejectReasonMin), rejectionContext(row))
            : null,
        moderated_by: moderator.operatorId,
      });
      await recordAudit(trx, {
        operatorId: moderator.operatorId,
        keyId: moderator.keyId,
        userId: moderator.userId,
        requestId: moderator.requestId,
        action: next === 'published' ? 'public_publish' : 'public_reject',
        reportId: row.id,
      });
      if (next === 'published') {
        // The outbox rows land with the publication (issue 14).
        await raisePublicReportVisible(trx, row.id);
        await raisePublicReportPublished(trx, row.id);
      } else if (row.status === 'published') {
        // Members told of the match on publication hear that it is gone (a draft told no one).
        await raisePublicReportWithdrawn(trx, row.id);
      }
      return updated;
    });
  }

  return {
    /**
     * The checks of `intake` that need no database, on a body that failed its schema: whatever of it
     * has the right shape is checked too, so the person filing hears of every mistake at once, not
     * one round after another (the schema's errors first, then these on the next try).
     */
    precheck(body: unknown): FieldError[] {
      const errors: FieldError[] = [];
      if (typeof body !== 'object' || body === null) return errors;
      const input = body as Record<string, unknown>;
      precheckReport(input, identifiers, errors);
      if (typeof input.eventDate === 'string') parseEventDate(input.eventDate, errors);
      for (const field of ['victim', 'guestInfo'] as const) {
        const contact = input[field];
        if (typeof contact !== 'object' || contact === null) continue;
        const { email, phone } = contact as Record<string, unknown>;
        normalizeContact(
          { ...(typeof email === 'string' ? { email } : {}), ...(typeof phone === 'string' ? { phone } : {}) },
          field,
          false,
          errors,
        );
      }
      return errors;
    },

    /** A report from the public: checked, its identifiers and contact details sealed, stored as a draft. */
    async intake(input: PublicReportInput): Promise<{ id: string; reference: string; status: 'draft' }> {
      const errors: FieldError[] = [];
      const id = randomUUID();
      const fraudReason = checkFraudReason(input.fraudReason, errors) as string;
      const financialInstitution = input.financialInstitution.trim().replace(/\s+/g, ' ');
      // Shown to banks and sent in webhooks: it must be there to see, and read as it is written.
      const institutionProblem =
        unseenProblem(financialInstitution) ?? (visibleLength(financialInstitution) === 0 ? 'must name the bank' : undefined);
      if (institutionProblem) errors.push({ field: 'financialInstitution', message: institutionProblem });
      const eventDate = parseEventDate(input.eventDate, errors);
      const sealed = identifiers.seal(input.identifiers, { companyId, recordId: id }, errors);
      const uploadIds = await attachments.resolve(input.attachments ?? [], { companyId, recordId: id }, errors);
      const victim = input.victim ? normalizeContact(input.victim, 'victim', true, errors) : null;
      const guestInfo = input.guestInfo ? normalizeContact(input.guestInfo, 'guestInfo', false, errors) : null;
      if (errors.length > 0) throw AppError.validation(errors);

      const sealedVictim = seal(victim, id, 'victim');
      const sealedGuest = seal(guestInfo, id, 'guestInfo');
      await db.transaction().execute(async (trx) => {
        await repo.insertPublicReport(trx, {
          id,
          company_id: companyId,
          reporting_entity: input.reportingEntity,
          fraud_type: input.fraudType,
          fraud_reason_token: keyring.seal(fraudReason, reasonContext(companyId, id)),
          fraud_reason_masked: maskFraudReason(fraudReason),
          // The bank's name is shown to every member and its moderators: an account number or phone
          // typed beside it ("Access Bank acct 0123456789") is masked as a reason is. Such values
          // belong in identifiers, where they are sealed.
          financial_institution: maskFraudReason(financialInstitution),
          event_date: eventDate,
          attachments: uploadIds,
          victim_token: sealedVictim.token,
          victim_masked: sealedVictim.masked,
          guest_info_token: sealedGuest.token,
          guest_info_masked: sealedGuest.masked,
        });
        await repo.insertPublicIdentifiers(
          trx,
          sealed.map((s, position) => ({ ...s.row, public_report_id: id, position })),
        );
        if (uploadIds.length > 0) await attachments.attach(trx, { companyId, recordId: id }, uploadIds);
      });
      return { id, reference: referenceOf(id), status: 'draft' };
    },

    /**
     * The status page of the person who filed (decision 0129): the full id is what proves they did,
     * so an id that names no report, is no id at all, or names one since deleted is one and the same
     * "not found". Nothing an operator wrote (the reason, who decided) and no identifier is told.
     * Not audited: a public read, like the intake, records nothing of who asked.
     */
    async senderStatus(id: string): Promise<{ reference: string; status: SenderStatus; receivedAt: string; updatedAt: string }> {
      const key = isUuid(id) ? id.toLowerCase() : undefined;
      const row = key === undefined ? undefined : await repo.findSenderStatus(db, key);
      if (key === undefined || !row) throw AppError.notFound('Public report not found');
      const status: SenderStatus =
        row.status === 'draft'
          ? 'received'
          : row.status === 'published'
            ? 'published'
            : row.first_published_at
              ? 'withdrawn'
              : 'not_published';
      return {
        reference: referenceOf(key),
        status,
        receivedAt: row.created_at.toISOString(),
        // The latest decision, not `updated_at`: that one may move for reasons of the service's own.
        updatedAt: (row.moderated_at ?? row.created_at).toISOString(),
      };
    },

    async list(query: { status?: PublicReportStatus | undefined; reference?: string | undefined; page: number; limit: number }) {
      const offset = (query.page - 1) * query.limit;
      const filter = { status: query.status, ids: query.reference === undefined ? undefined : parseReference(query.reference) };
      const { rows, total } = await repo.listPublicReports(db, { ...filter, offset, limit: query.limit });
      // A page past the end has no row to carry the total.
      const count = rows.length === 0 && offset > 0 ? await repo.countPublicReports(db, filter) : total;
      const byReport = new Map<string, repo.PublicIdentifierRow[]>();
      for (const identifier of await repo.findPublicIdentifiers(
        db,
        rows.map((r) => r.id),
      )) {
        byReport.set(identifier.public_report_id, [...(byReport.get(identifier.public_report_id) ?? []), identifier]);
      }
      return {
        data: rows.map((row) => viewOf(row, byReport.get(row.id) ?? [], false)),
        meta: { total: count, page: query.page, limit: query.limit },
      };
    },

    /** One report with clear identifiers and contact details; the reading is audited. */
    async decoded(moderator: Moderator, id: string) {
      const row = await requireReport(id);
      const report = await view(row, true);
      await recordAudit(db, { ...moderator, action: 'public_decode', reportId: row.id });
      return report;
    },

    async publish(moderator: Moderator, id: string) {
      return view(await decide(moderator, id, 'published'));
    },

    /** A draft or a published report is rejected (taken down); search never returns it again. */
    async reject(moderator: Moderator, id: string, reason: string) {
      return view(await decide(moderator, id, 'rejected', reason));
    },
  };
}

export type PublicReportsService = ReturnType<typeof createPublicReportsService>;
