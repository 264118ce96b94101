import type { Kysely } from 'kysely';
import { maskFraudReason } from '../../modules/reports/reason-masking.js';

const BATCH = 1000;

/**
 * A public report's `financial_institution` is shown to every member in search: identifiers typed
 * into it (an account number beside the bank's name) are now masked when it is written; the rows
 * written before are masked here, a batch at a time (their report cards follow by trigger).
 */
export async function up(db: Kysely<any>): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db
      .selectFrom('public_reports')
      .select(['id', 'financial_institution'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      const masked = maskFraudReason(row.financial_institution as string);
      if (masked !== row.financial_institution) {
        await db.updateTable('public_reports').set({ financial_institution: masked }).where('id', '=', row.id).execute();
      }
    }
    if (rows.length < BATCH) return;
    after = rows.at(-1)?.id as string;
  }
}

export async function down(): Promise<void> {
  // The clear text is gone: nothing to restore.
}
