import { type Kysely, sql } from 'kysely';

/**
 * E-mail alerts once a day (decision 0140): a person may ask for one mail a day, at 08:00 in Lagos,
 * instead of one every quarter of an hour. A constant default: no rewrite of the table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users add column watchlist_alerts_daily boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table users drop column watchlist_alerts_daily`.execute(db);
}
