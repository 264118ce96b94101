import { type Kysely, sql } from 'kysely';

/**
 * `analyze audit_events` samples 3,000 rows instead of 30,000 (decision 0112). Every search writes
 * a row here, so it is the table the embedded engine's upkeep analyses most often (each time a
 * tenth of it is new), and PGlite analyses on Node's main thread: 330–465 ms of a stalled service
 * each time at 1–2 million rows, 32–36 ms with this sample. Every column, as the sample is 300 rows
 * times the largest target of any. What the coarser estimates may cost the company audit page is
 * in the decision.
 */
const COLUMNS = [
  'id',
  'company_id',
  'operator_id',
  'key_id',
  'user_id',
  'action',
  'label',
  'blind_index',
  'report_id',
  'result_count',
  'request_id',
  'created_at',
];
const TARGET = 10;

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) {
    await sql`alter table audit_events alter column ${sql.id(column)} set statistics ${sql.raw(String(TARGET))}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) {
    await sql`alter table audit_events alter column ${sql.id(column)} set statistics -1`.execute(db);
  }
}
