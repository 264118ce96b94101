import { type Kysely, sql } from 'kysely';

/**
 * Which dispute took a report off the list, while it is off: a member may not put such a report
 * back (the operators may). Set by the dispute's exit, decision or timeout when it is what took the
 * report off, cleared by a relist, null for every other exit. No foreign key: disputes already
 * point at reports, and the id is only read back.
 *
 * Reports taken off by a dispute before this migration stay null (their member may relist them,
 * as before): which dispute caused an exit was never recorded, and guessing from timestamps would
 * lock out members whose own exit happened to come first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table reports add column exited_by_dispute_id uuid`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table reports drop column exited_by_dispute_id`.execute(db);
}
