import { type Kysely, sql } from 'kysely';

/**
 * Which operator took a report off the list, while it is off: as with a dispute's outcome (0022),
 * the member may not put it back, the operators may. Set by an operator's exit, cleared by a
 * relist, null for every other exit. Reports the operators took off before this migration stay
 * null (their member may relist them, as before): the audit trail says who exited, but reading it
 * back per report for a rule is what 0022 chose not to do.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table reports add column exited_by_operator_id uuid`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table reports drop column exited_by_operator_id`.execute(db);
}
