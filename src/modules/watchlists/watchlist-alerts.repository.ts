import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A person's alerts: null when they have not asked for them, else the time up to which they were told. */
export async function alertsAfterOf(db: Db, userId: string): Promise<Date | null> {
  const row = await db.selectFrom('users').select('watchlist_alerts_after').where('id', '=', userId).executeTakeFirst();
  return row?.watchlist_alerts_after ?? null;
}

/** Turns a person's alerts on from `after` (the events before it are not told), or off with null. */
export async function setAlertsAfter(db: Db, userId: string, after: Date | null): Promise<void> {
  await db.updateTable('users').set({ watchlist_alerts_after: after }).where('id', '=', userId).execute();
}

/**
 * A person to tell, with what happened to their company's watched customers since they were last told.
 * The two times are PostgreSQL's text of a timestamptz: a JavaScript Date keeps milliseconds only,
 * and an event a few microseconds after a time rounded down to its millisecond would be told twice.
 */
export interface DueAlert {
  user_id: string;
  email: string;
  business_name: string;
  after: string;
  /** The newest event counted: the person is told up to here. */
  until: string;
  matches: number;
  changes: number;
}

/**
 * Every active analyst or administrator of an active member who asked for alerts and whose company
 * has events about its watchlist entries after their time and at least `settleSeconds` old (by the
 * database's clock, the one that stamped them). One statement, through the company's partial index of
 * migration 0037.
 */
export async function dueAlerts(db: Db, settleSeconds: number, limit: number): Promise<DueAlert[]> {
  const result = await sql<DueAlert & { matches: string; changes: string }>`
    select u.id as user_id, u.email, c.business_name, u.watchlist_alerts_after::text as after, e.until::text as until,
      e.matches, e.changes
    from users u
    join companies c on c.id = u.company_id and c.status = 'active'
    cross join lateral (
      select max(created_at) as until,
        count(*) filter (where type = 'watchlist.match') as matches,
        count(*) filter (where type <> 'watchlist.match') as changes
      from webhook_events
      where company_id = u.company_id and watchlist_entry_id is not null
        and created_at > u.watchlist_alerts_after and created_at <= now() - make_interval(secs => ${settleSeconds})
    ) e
    where u.watchlist_alerts_after is not null and u.status = 'active' and u.role in ('analyst', 'admin')
      and e.until is not null
    order by u.watchlist_alerts_after, u.id
    limit ${limit}`.execute(db);
  return result.rows.map((row) => ({ ...row, matches: Number(row.matches), changes: Number(row.changes) }));
}

/**
 * Records that a person was told up to `until`, unless they turned their alerts off or on again
 * meanwhile (their time is no longer `after`): then their own choice stands.
 */
export async function markTold(db: Db, userId: string, after: string, until: string): Promise<void> {
  await sql`update users set watchlist_alerts_after = ${until}::timestamptz
    where id = ${userId} and watchlist_alerts_after = ${after}::timestamptz`.execute(db);
}
