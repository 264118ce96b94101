import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, WatchlistEntriesTable } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export type WatchlistEntryRow = Selectable<WatchlistEntriesTable>;

/** A company's entries, of one label when given. */
function entriesOf(db: Db, companyId: string, label: string | undefined) {
  let query = db.selectFrom('watchlist_entries').where('company_id', '=', companyId);
  if (label) query = query.where('label', '=', label);
  return query;
}

/**
 * Inserts the entries, skipping any the company already watches (same label and blind index):
 * the ids returned are those stored, so a missing one was a duplicate.
 */
export async function insertEntries(db: Db, rows: readonly Insertable<WatchlistEntriesTable>[]): Promise<string[]> {
  const inserted = await db
    .insertInto('watchlist_entries')
    .values(rows)
    .onConflict((oc) => oc.columns(['company_id', 'label', 'blind_index']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((r) => r.id);
}

/** A page of a company's entries, newest first. */
export function listEntries(
  db: Db,
  companyId: string,
  page: { label?: string | undefined; limit: number; offset: number },
): Promise<WatchlistEntryRow[]> {
  return entriesOf(db, companyId, page.label)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countEntries(db: Db, companyId: string, label?: string): Promise<number> {
  const row = await entriesOf(db, companyId, label).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  return row.n;
}

/** Whether the company had this entry to delete (another company's is not touched). */
export async function deleteEntry(db: Db, companyId: string, id: string): Promise<boolean> {
  const removed = await db
    .deleteFrom('watchlist_entries')
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return removed.numDeletedRows !== 0n;
}
