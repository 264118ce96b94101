import { type Kysely, sql } from 'kysely';

/**
 * A company's events newest first, of two kinds, each through a partial index of its own (a page
 * never reads other companies' events, and the matches' count is an index-only scan): its watchlist
 * matches (`GET /api/v1/external/watchlist/matches`, decision 0137) and the public reports naming its
 * bank (`GET /api/v1/external/public-reports`, decision 0138). Built in the migration's transaction,
 * so writes to `webhook_events` wait while they are built (CONCURRENTLY cannot run in one).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index webhook_events_company_entry_idx on webhook_events (company_id, created_at desc, id desc)
    where watchlist_entry_id is not null`.execute(db);
  await sql`create index webhook_events_company_published_idx on webhook_events (company_id, created_at desc, id desc)
    where type = 'public_report.published'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_events_company_published_idx`.execute(db);
  await sql`drop index webhook_events_company_entry_idx`.execute(db);
}
