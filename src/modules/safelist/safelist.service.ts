import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { indexEntriesToStore } from '../../crypto/blind-index.js';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { type BankDirectory, type IdentifierLabel, normalizeIdentifier } from '../../identifiers/normalize.js';
import { recordAudit } from '../audit/audit.repository.js';
import { isUuid } from '../ids.js';
import { referenceOf } from '../public-reports/reference.js';
import { trimmedText } from '../trimmed-text.js';
import {
  deleteEntry,
  findSafelisted,
  type IndexPair,
  insertEntry,
  listEntries,
  reportsCarrying,
  type SafelistRow,
  safelistedOfReport,
} from './safelist.repository.js';
import { openSafelistReason, safelistReasonContext } from './safelist-reason.js';

const SAFELISTED = 'is on the safelist: this identifier must never be listed';

function refuse(fields: string[]): never {
  throw new AppError('IDENTIFIER_SAFELISTED', 'An identifier is on the safelist and cannot be listed', {
    errors: fields.map((field) => ({ field, message: SAFELISTED })),
  });
}

/**
 * The check reports run on create, draft edit and publish: 422 IDENTIFIER_SAFELISTED naming each
 * safelisted identifier's field (`identifiers/<i>/value`).
 */
export function createSafelistCheck(db: Kysely<Database>) {
  return {
    async checkNew(rows: readonly IndexPair[], fieldPrefix = 'identifiers'): Promise<void> {
      const hits = await findSafelisted(db, rows);
      if (hits.length === 0) return;
      const key = (p: IndexPair) => `${p.label}:${p.blind_index.toString('hex')}`;
      const listed = new Set(hits.map(key));
      refuse(rows.flatMap((row, i) => (listed.has(key(row)) ? [`${fieldPrefix}/${i}/value`] : [])));
    },
    async checkStored(conn: Kysely<Database>, reportId: string): Promise<void> {
      const hits = await safelistedOfReport(conn, reportId, 'report_identifiers');
      if (hits.length > 0) refuse(hits.map((h) => `identifiers/${h.position}/value`));
    },
    async checkStoredPublic(conn: Kysely<Database>, publicReportId: string): Promise<void> {
      const hits = await safelistedOfReport(conn, publicReportId, 'public_report_identifiers');
      if (hits.length > 0) refuse(hits.map((h) => `identifiers/${h.position}/value`));
    },
  };
}
export type SafelistCheck = ReturnType<typeof createSafelistCheck>;

export interface SafelistActor {
  keyId?: string | undefined;
  /** A signed-in operator user (no key). */
  userId?: string | undefined;
  operatorId?: string | undefined;
  requestId: string;
}

/** The operators' safelist: identifiers kept as blind indexes only (the value is never stored). */
export function createSafelistService(deps: {
  db: Kysely<Database>;
  crypto: Pick<Crypto, 'blindIndex' | 'keyring'>;
  banks: BankDirectory;
}) {
  const { db } = deps;

  function indexOf(label: IdentifierLabel, value: string) {
    const normalized = normalizeIdentifier(label, value, { banks: deps.banks, purpose: 'store' });
    if (!normalized.ok) throw AppError.validation([{ field: 'value', message: normalized.message }]);
    const [exact] = indexEntriesToStore(deps.crypto.blindIndex, label, normalized);
    if (!exact) throw new Error(`no index entry for ${label}`);
    return exact;
  }

  const view = (row: SafelistRow) => ({
    id: row.id,
    label: row.label,
    reason: openSafelistReason(deps.crypto.keyring, row),
    operatorId: row.operator_id,
    createdAt: row.created_at.toISOString(),
  });

  return {
    /** Adds an entry; existing reports carrying it are listed for review, not touched. */
    async add(actor: SafelistActor, input: { label: IdentifierLabel; value: string; reason: string }) {
      const reason = trimmedText('reason', input.reason, 10);
      const entry = indexOf(input.label, input.value);
      // The entry and its audit row land together: an entry never exists without its trail.
      const row = await db.transaction().execute(async (trx) => {
        const id = randomUUID();
        const added = await insertEntry(trx, {
          id,
          label: input.label,
          blind_index: entry.digest,
          index_version: entry.version,
          reason_token: deps.crypto.keyring.seal(reason, safelistReasonContext(id)),
          operator_id: actor.operatorId ?? null,
        });
        if (!added) throw new AppError('INVALID_STATE', 'This identifier is already on the safelist');
        if (actor.keyId || actor.userId)
          await recordAudit(trx, {
            ...actor,
            keyId: actor.keyId ?? null,
            action: 'safelist_add',
            label: input.label,
            blindIndex: entry.digest,
          });
        return added;
      });
      const carrying = await reportsCarrying(db, { label: input.label, blind_index: entry.digest });
      return {
        entry: view(row),
        reportsToReview: carrying.map((r) => ({
          id: r.id,
          companyId: r.company_id,
          kind: r.kind,
          status: r.status,
          listingStatus: r.listing_status,
          reference: r.kind === 'public_report' ? referenceOf(r.id) : null,
        })),
      };
    },

    async list() {
      const rows = await listEntries(db);
      return { entries: rows.map(view) };
    },

    async remove(actor: SafelistActor, id: string) {
      const row = await db.transaction().execute(async (trx) => {
        const removed = isUuid(id) ? await deleteEntry(trx, id.toLowerCase()) : undefined;
        if (!removed) throw AppError.notFound('Safelist entry not found');
        if (actor.keyId || actor.userId)
          await recordAudit(trx, {
            ...actor,
            keyId: actor.keyId ?? null,
            action: 'safelist_remove',
            label: removed.label,
            blindIndex: removed.blind_index,
          });
        return removed;
      });
      return { entry: view(row) };
    },
  };
}

export type SafelistService = ReturnType<typeof createSafelistService>;
