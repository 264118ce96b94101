import { type Kysely, sql } from 'kysely';
import type { SealContext } from '../../crypto/keyring.js';
import type { Database } from '../../db/schema.js';

/**
 * A report's free-text reason is sealed at rest like an identifier (people type phone numbers and
 * account numbers into it), bound to its company and record. Search shows every member the masked
 * copy (`fraud_reason_masked`, decision 0032); the owner and operators read the sealed one opened.
 */
export const REASON_LABEL = 'fraudReason';

export interface ReasonSealer {
  seal(text: string, context: SealContext): string;
  open(token: string, context: SealContext): string;
}

/** The columns a stored reason is read from: a row sealed before migration 0016's backfill still has it in clear. */
export interface StoredReason {
  id: string;
  company_id: string;
  fraud_reason: string | null;
  fraud_reason_token: string | null;
}

export const reasonContext = (companyId: string, recordId: string): SealContext => ({
  companyId,
  recordId,
  label: REASON_LABEL,
});

export function openReason(sealer: Pick<ReasonSealer, 'open'>, row: StoredReason): string {
  if (row.fraud_reason_token) return sealer.open(row.fraud_reason_token, reasonContext(row.company_id, row.id));
  return row.fraud_reason ?? '';
}

const BATCH = 500;

/**
 * Seals the reasons still stored in clear (rows from before migration 0016), a batch per
 * transaction, clearing the clear column as it goes. Run at start-up by the process that migrates
 * (a migration has no key); once done it is one look-up in an empty partial index. Returns how many.
 */
export async function sealClearReasons(db: Kysely<Database>, sealer: Pick<ReasonSealer, 'seal'>): Promise<number> {
  let done = 0;
  for (const table of ['reports', 'public_reports'] as const) {
    for (;;) {
      const count = await db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ id: string; company_id: string; fraud_reason: string }>`
          select id, company_id, fraud_reason from ${sql.table(table)}
          where fraud_reason is not null order by id limit ${BATCH} for update`.execute(trx);
        if (rows.length === 0) return 0;
        const values = rows.map(
          (row) => sql`(${row.id}::uuid, ${sealer.seal(row.fraud_reason, reasonContext(row.company_id, row.id))})`,
        );
        await sql`update ${sql.table(table)} as t set fraud_reason_token = v.token, fraud_reason = null
          from (values ${sql.join(values)}) as v(id, token) where t.id = v.id`.execute(trx);
        return rows.length;
      });
      done += count;
      if (count < BATCH) break;
    }
  }
  return done;
}
