import { type Kysely, sql } from 'kysely';

/**
 * One file at a time per watchlist import: the request reading it holds a lease (`receiving_by`, a
 * random id of that request, until `receiving_until`), renewed with every batch it commits. Two
 * uploads at once both read the same lines before (counted twice, their rows reported as "already on
 * the watchlist"); now the second is 409. A reader killed mid-file frees the import when its lease lapses.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('watchlist_imports')
    .addColumn('receiving_by', 'uuid')
    .addColumn('receiving_until', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table watchlist_imports drop column receiving_by, drop column receiving_until`.execute(db);
}
