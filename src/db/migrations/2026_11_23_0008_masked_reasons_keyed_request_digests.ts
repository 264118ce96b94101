import { type Kysely, sql } from 'kysely';
import { maskFraudReason } from '../../modules/reports/reason-masking.js';

const BATCH = 1000;
/** The stored request digest of a row written before digests were keyed: erased, see below. */
const ERASED_REQUEST_DIGEST = Buffer.alloc(32);

/**
 * Issue 12. (1) `fraud_reason_masked` on reports and public reports: the reason with identifier-shaped
 * substrings masked, written with every reason, and what search shows to other companies; existing
 * rows are backfilled here in batches. (2) Idempotency rows written before request digests were keyed
 * hold a plain SHA-256 of their body (identifiers included): it is erased, and such a row replays its
 * stored response for its key without comparing bodies for the rest of its 24 hours.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['reports', 'public_reports']) {
    await db.schema.alterTable(table).addColumn('fraud_reason_masked', 'text').execute();
    for (;;) {
      const rows = await db
        .selectFrom(table)
        .select(['id', 'fraud_reason'])
        .where('fraud_reason_masked', 'is', null)
        .limit(BATCH)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        await db
          .updateTable(table)
          .set({ fraud_reason_masked: maskFraudReason(row.fraud_reason as string) })
          .where('id', '=', row.id)
          .execute();
      }
    }
    await db.schema
      .alterTable(table)
      .alterColumn('fraud_reason_masked', (col) => col.setNotNull())
      .execute();
  }
  await sql`update idempotency_keys set request_hash = ${ERASED_REQUEST_DIGEST}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['reports', 'public_reports']) {
    await db.schema.alterTable(table).dropColumn('fraud_reason_masked').execute();
  }
}
