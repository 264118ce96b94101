import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, SafelistTable } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export type SafelistRow = Selectable<SafelistTable>;

export interface IndexPair {
  label: string;
  blind_index: Buffer;
}

/** Which of these (label, blind index) pairs are on the safelist. */
export async function findSafelisted(db: Db, pairs: readonly IndexPair[]): Promise<IndexPair[]> {
  if (pairs.length === 0) return [];
  const wanted = sql.join(pairs.map((p) => sql`(${p.label}::text, ${p.blind_index}::bytea)`));
  const result = await sql<IndexPair>`select label, blind_index from safelist where (label, blind_index) in (${wanted})`.execute(
    db,
  );
  return result.rows;
}

/** The stored identifiers of a report (or public report) that are on the safelist, by position. */
export async function safelistedOfReport(
  db: Db,
  reportId: string,
  table: 'report_identifiers' | 'public_report_identifiers',
): Promise<Array<{ position: number }>> {
  const owner = sql.ref(table === 'report_identifiers' ? 'ri.report_id' : 'ri.public_report_id');
  const result = await sql<{ position: number }>`
    select ri.position from ${sql.table(table)} ri
    join safelist s on s.label = ri.label and s.blind_index = ri.blind_index
    where ${owner} = ${reportId} order by ri.position`.execute(db);
  return result.rows;
}

/** Reports and public reports that carry the identifier: for an operator to review, never changed. */
export async function reportsCarrying(db: Db, pair: IndexPair) {
  const result = await sql<{
    id: string;
    company_id: string;
    kind: 'report' | 'public_report';
    status: string;
    listing_status: string | null;
  }>`
    select r.id, r.company_id, 'report' as kind, r.status, r.listing_status
    from report_identifiers ri join reports r on r.id = ri.report_id
    where ri.label = ${pair.label} and ri.blind_index = ${pair.blind_index}
    union
    select p.id, p.company_id, 'public_report', p.status, null
    from public_report_identifiers pi join public_reports p on p.id = pi.public_report_id
    where pi.label = ${pair.label} and pi.blind_index = ${pair.blind_index}
    order by kind, id`.execute(db);
  return result.rows;
}

/** Adds an entry; undefined when the identifier (label and blind index) is already on the safelist. */
export function insertEntry(db: Db, values: Insertable<SafelistTable>): Promise<SafelistRow | undefined> {
  return db
    .insertInto('safelist')
    .values(values)
    .onConflict((oc) => oc.columns(['label', 'blind_index']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Every entry, newest first. */
export function listEntries(db: Db): Promise<SafelistRow[]> {
  return db.selectFrom('safelist').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
}

/** Removes an entry and returns it; undefined when there was none. */
export function deleteEntry(db: Db, id: string): Promise<SafelistRow | undefined> {
  return db.deleteFrom('safelist').where('id', '=', id).returningAll().executeTakeFirst();
}
