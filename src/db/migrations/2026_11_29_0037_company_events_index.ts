import { type Kysely, sql } from 'kysely';

/**
 * A company's events newest first: its watchlist matches (`GET /api/v1/external/watchlist/matches`,
 * decision 0137) and the public reports naming its bank (`GET /api/v1/external/public-reports`,
 * decision 0138) read the webhook outbox through this index, never other companies' events.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index webhook_events_company_idx on webhook_events (company_id, created_at desc, id desc)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_events_company_idx`.execute(db);
}
