import { type Kysely, sql } from 'kysely';

/**
 * What an administrative change was made to: the key issued, rotated or revoked, the user invited,
 * re-roled or removed, the webhook endpoint added, changed or removed. Null for every other row
 * (a search, a report's change: those name a report or a label). A nullable column without a
 * default: adding it rewrites nothing, on a table every search writes to.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table audit_events add column subject_id uuid`.execute(db);
  // Sampled as coarsely as the table's other columns (migration 0020, decision 0112): analyze takes
  // 300 rows times the largest target of any column, so one column at the default would undo it.
  await sql`alter table audit_events alter column subject_id set statistics 10`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table audit_events drop column subject_id`.execute(db);
}
