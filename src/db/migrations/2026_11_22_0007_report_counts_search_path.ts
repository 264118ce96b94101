import { type Kysely, sql } from 'kysely';

/**
 * The counting trigger names `report_counts` without a schema, so it followed the search path of
 * whoever changed `reports`: a maintenance session deleting `myschema.reports` with another search
 * path failed ("relation report_counts does not exist"). The function now keeps the search path it
 * was migrated under (the service's schema), whoever calls it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter function report_counts_track() set search_path from current`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter function report_counts_track() reset search_path`.execute(db);
}
