import { type Kysely, sql } from 'kysely';

/**
 * The desk's and the API's list of a company's watchlist matches (`GET /api/v1/external/watchlist/matches`)
 * reads the webhook outbox newest first: this index serves it without reading other companies' events.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index webhook_events_company_entry_idx on webhook_events (company_id, created_at desc, id desc)
    where watchlist_entry_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_events_company_entry_idx`.execute(db);
}
