import { type Kysely, sql } from 'kysely';

/**
 * One live account per address per company (or operator), not per registry. With one per
 * registry, a company admin inviting `someone@otherbank.ng` learned from the refusal that the
 * person had an account at another member. Sign-in finds the account by address and password
 * together (see sessions.service.ts); accepting an invitation refuses a password that already
 * opens another of the address's accounts, so a password never opens two.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index users_email_live`.execute(db);
  await sql`create unique index users_email_live on users (coalesce(company_id, operator_id), email) where status <> 'removed'`.execute(
    db,
  );
  // Sign-in looks an address up across owners.
  await sql`create index users_email on users (email) where status <> 'removed'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index users_email`.execute(db);
  await sql`drop index users_email_live`.execute(db);
  await sql`create unique index users_email_live on users (email) where status <> 'removed'`.execute(db);
}
