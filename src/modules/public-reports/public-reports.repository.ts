import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, PublicReportIdentifiersTable, PublicReportsTable } from '../../db/schema.js';
import type { PublicReportStatus } from './public-report-values.js';
import type { ReferenceRange } from './reference.js';

type Db = Kysely<Database> | Transaction<Database>;

export type PublicReportRow = Selectable<PublicReportsTable>;
export type PublicIdentifierRow = Pick<
  Selectable<PublicReportIdentifiersTable>,
  'id' | 'public_report_id' | 'label' | 'value_token'
>;

export async function insertPublicReport(
  trx: Transaction<Database>,
  row: Insertable<PublicReportsTable>,
): Promise<PublicReportRow> {
  return trx.insertInto('public_reports').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertPublicIdentifiers(
  trx: Transaction<Database>,
  rows: Array<Selectable<PublicReportIdentifiersTable>>,
): Promise<void> {
  if (rows.length > 0) await trx.insertInto('public_report_identifiers').values(rows).execute();
}

export function findPublicReport(db: Db, id: string, forUpdate = false): Promise<PublicReportRow | undefined> {
  const query = db.selectFrom('public_reports').selectAll().where('id', '=', id);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * What the status page of the person who filed needs of one report, and nothing else: its state,
 * when it came, when it was last decided, and whether it was ever published.
 */
export async function findSenderStatus(db: Db, id: string) {
  return db
    .selectFrom('public_reports')
    .select(['status', 'created_at', 'moderated_at', 'first_published_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findPublicIdentifiers(db: Db, reportIds: string[]): Promise<PublicIdentifierRow[]> {
  if (reportIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('public_report_identifiers')
    .select(['id', 'public_report_id', 'label', 'value_token'])
    .where('public_report_id', 'in', reportIds)
    .orderBy('public_report_id')
    .orderBy('position')
    .execute();
}

/** A page of public reports, newest first, with the filtered total in the same query. */
/** Which public reports a list or count covers: a state, and the ids a reference stands for. */
export interface PublicReportFilter {
  status?: PublicReportStatus | undefined;
  ids?: ReferenceRange | undefined;
}

export async function listPublicReports(
  db: Db,
  options: PublicReportFilter & { offset: number; limit: number },
): Promise<{ rows: PublicReportRow[]; total: number }> {
  const rows = await db
    .selectFrom('public_reports')
    .selectAll()
    .select(sql<number>`count(*) over ()`.as('total'))
    .$if(options.status !== undefined, (q) => q.where('status', '=', options.status as PublicReportStatus))
    // A range of the primary key: a reference is found through its index, not by reading every id.
    .$if(options.ids !== undefined, (q) =>
      q.where('id', '>=', (options.ids as ReferenceRange).from).where('id', '<=', (options.ids as ReferenceRange).to),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(options.offset)
    .limit(options.limit)
    .execute();
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}

export async function countPublicReports(db: Db, { status, ids }: PublicReportFilter): Promise<number> {
  const row = await db
    .selectFrom('public_reports')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .$if(status !== undefined, (q) => q.where('status', '=', status as PublicReportStatus))
    .$if(ids !== undefined, (q) =>
      q.where('id', '>=', (ids as ReferenceRange).from).where('id', '<=', (ids as ReferenceRange).to),
    )
    .executeTakeFirstOrThrow();
  return row.total;
}

export async function setModeration(
  trx: Transaction<Database>,
  id: string,
  change: { status: PublicReportStatus; rejection_reason_token: string | null; moderated_by: string },
): Promise<PublicReportRow> {
  return trx
    .updateTable('public_reports')
    .set({
      ...change,
      rejection_reason: null,
      moderated_at: sql`now()`,
      updated_at: sql`now()`,
      // Kept when it is taken down: its sender then reads "withdrawn", not "not published".
      ...(change.status === 'published' ? { first_published_at: sql`coalesce(first_published_at, now())` } : {}),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
