import { type Kysely, sql } from 'kysely';

/**
 * One live account per address *and member* (company or operators), where it was one per address.
 * With one per address, a member's admin inviting someone who already works at another member got a
 * 409 "already exists": it told them that person has an account elsewhere. Now each member's accounts
 * are its own; sign-in asks which member only when the password opens several (decision 0121).
 * `coalesce`: exactly one of company_id and operator_id is set (users_owner_role), so it is the owner.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unique index users_owner_email_live on users (coalesce(company_id, operator_id), email)
    where status <> 'removed'`.execute(db);
  await sql`drop index users_email_live`.execute(db);
  // Sign-in looks an address up across members.
  await sql`create index users_email on users (email) where status <> 'removed'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index users_email`.execute(db);
  await sql`create unique index users_email_live on users (email) where status <> 'removed'`.execute(db);
  await sql`drop index users_owner_email_live`.execute(db);
}
