import { type Kysely, sql } from 'kysely';

/**
 * Account recovery takes two people when the link is handed over (decision 0136): the account keeps
 * who last reset its second factor and when, and a password link keeps the administrator it was
 * handed to (null when only the person's mailbox received it), so the same administrator cannot
 * take both steps for one person within a day.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users add column second_factor_reset_by uuid, add column second_factor_reset_at timestamptz`.execute(db);
  await sql`alter table user_invitations add column handed_to uuid`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table user_invitations drop column handed_to`.execute(db);
  await sql`alter table users drop column second_factor_reset_by, drop column second_factor_reset_at`.execute(db);
}
