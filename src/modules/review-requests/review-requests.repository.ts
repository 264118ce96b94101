import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, ReviewOutcome, ReviewRequestStatus, ReviewRequestsTable } from '../../db/schema.js';
import type { ReferenceRange } from '../public-reports/reference.js';

type Db = Kysely<Database> | Transaction<Database>;
export type ReviewRequestRow = Selectable<ReviewRequestsTable>;

export async function insertReviewRequest(db: Db, row: Insertable<ReviewRequestsTable>): Promise<void> {
  await db.insertInto('review_requests').values(row).execute();
}

export interface ReviewRequestFilter {
  status?: ReviewRequestStatus | undefined;
  ids?: ReferenceRange | undefined;
}

/**
 * Waiting requests oldest first (the longest wait is answered first, and is never past the first
 * page); the rest newest first. `total` counts every row the filter takes.
 */
export async function listReviewRequests(db: Db, filter: ReviewRequestFilter & { offset: number; limit: number }) {
  const direction = filter.status === 'open' ? 'asc' : 'desc';
  const rows = await db
    .selectFrom('review_requests')
    .selectAll()
    .select(sql<number>`count(*) over ()`.as('total'))
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status as ReviewRequestStatus))
    // A range of the primary key: a reference is found through its index.
    .$if(filter.ids !== undefined, (q) =>
      q.where('id', '>=', (filter.ids as ReferenceRange).from).where('id', '<=', (filter.ids as ReferenceRange).to),
    )
    .orderBy('created_at', direction)
    .orderBy('id', direction)
    .offset(filter.offset)
    .limit(filter.limit)
    .execute();
  return { rows: rows.map(({ total: _total, ...row }) => row), total: Number(rows[0]?.total ?? 0) };
}

export async function countReviewRequests(db: Db, { status, ids }: ReviewRequestFilter): Promise<number> {
  const row = await db
    .selectFrom('review_requests')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .$if(status !== undefined, (q) => q.where('status', '=', status as ReviewRequestStatus))
    .$if(ids !== undefined, (q) =>
      q.where('id', '>=', (ids as ReferenceRange).from).where('id', '<=', (ids as ReferenceRange).to),
    )
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export async function findReviewRequest(db: Db, id: string, forUpdate = false): Promise<ReviewRequestRow | undefined> {
  const query = db.selectFrom('review_requests').selectAll().where('id', '=', id);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

/** What the person's status page reads (decision 0133): the state and its two times, nothing sealed. */
export async function findPersonStatus(db: Db, id: string) {
  return db.selectFrom('review_requests').select(['status', 'created_at', 'closed_at']).where('id', '=', id).executeTakeFirst();
}

export async function closeReviewRequest(
  db: Db,
  id: string,
  change: { outcome: ReviewOutcome; noteToken: string; at: Date },
): Promise<ReviewRequestRow> {
  return db
    .updateTable('review_requests')
    .set({ status: 'closed', outcome: change.outcome, outcome_note_token: change.noteToken, closed_at: change.at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes up to `limit` requests closed before `before`; how many went. */
export async function deleteClosedBefore(db: Db, before: Date, limit: number): Promise<number> {
  const gone = await db
    .deleteFrom('review_requests')
    .where('id', 'in', (eb) =>
      eb.selectFrom('review_requests').select('id').where('status', '=', 'closed').where('closed_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(gone.numDeletedRows);
}
