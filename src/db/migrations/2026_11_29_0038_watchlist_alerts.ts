import { type Kysely, sql } from 'kysely';

/**
 * E-mail alerts about a company's watched customers (decision 0140): a person who asks for them
 * keeps the time up to which they have been told (null: no alerts), and when a mail to them last
 * failed (they wait an hour, behind everyone else). The job that mails them
 * (src/modules/watchlists/watchlist-alerts.service.ts) reads the events after it, through the
 * company's index of migration 0037.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users add column watchlist_alerts_after timestamptz, add column watchlist_alerts_failed_at timestamptz`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table users drop column watchlist_alerts_after, drop column watchlist_alerts_failed_at`.execute(db);
}
