import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The hour of the day, in Lagos (UTC+1 all year), at which a person who asked for one mail a day is mailed. */
export const DAILY_ALERT_HOUR_LAGOS = 8;

/** A person's alerts: `after` null when they have not asked for them, else the time up to which they were told. */
export async function alertsOf(db: Db, userId: string): Promise<{ after: Date | null; daily: boolean }> {
  const row = await db
    .selectFrom('users')
    .select(['watchlist_alerts_after', 'watchlist_alerts_daily'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return { after: row?.watchlist_alerts_after ?? null, daily: row?.watchlist_alerts_daily ?? false };
}

/** Turns a person's alerts off. */
export async function turnAlertsOff(db: Db, userId: string): Promise<void> {
  await db.updateTable('users').set({ watchlist_alerts_after: null }).where('id', '=', userId).execute();
}

/** Turns a person's alerts on from the database's now (what came before is not told); a failed mail is forgotten. */
export async function turnAlertsOn(db: Db, userId: string): Promise<void> {
  await sql`update users set watchlist_alerts_after = now(), watchlist_alerts_failed_at = null where id = ${userId}`.execute(db);
}

/** Once a day or every quarter of an hour; kept while the alerts are off, for when they are on again. */
export async function setAlertsDaily(db: Db, userId: string, daily: boolean): Promise<void> {
  await db.updateTable('users').set({ watchlist_alerts_daily: daily }).where('id', '=', userId).execute();
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

/** Events counted for one person in one run; more are told in the next mail, from where this stopped. */
const EVENTS_PER_MAIL = 10_000;

/**
 * Every active analyst or administrator of an active member who asked for alerts and whose company
 * has events about its watchlist entries after their time, as far as they can be told now:
 * - at least `settleSeconds` old, and
 * - older than every client's transaction open in this database: an event is stamped with its
 *   transaction's start, so none still to commit is older than the oldest open one, and moving a
 *   person's time past it could skip an event committed after this read (autovacuum and other
 *   workers write no events, and are not waited for).
 * People whose last mail failed within the hour wait, and come after everyone else: a mailbox that
 * refuses for good must not hold the others back. Counted through the company index of migration
 * 0037, up to EVENTS_PER_MAIL each.
 *
 * A person who asked for one mail a day is due only when their oldest event untold is older than
 * the last DAILY_ALERT_HOUR_LAGOS, and every event before that hour can be told (the horizon has
 * passed it): the first such run tells them everything up to then and since, and what comes later
 * waits for the next day's hour. No time of the last mail is kept: the events' own times say
 * whether the day's mail went. A day of more than EVENTS_PER_MAIL events is told in several mails,
 * a run apart.
 *
 * `at` is the time the run reads the day's hour and the settling margin from: the database's now
 * unless given (a test places a run at chosen moments around the hour).
 */
export async function dueAlerts(db: Db, settleSeconds: number, limit: number, at?: Date): Promise<DueAlert[]> {
  const result = await sql<DueAlert & { matches: string; changes: string }>`
    with clock as (select coalesce(${at?.toISOString() ?? null}::timestamptz, now()) as now),
    horizon as (
      select least(
        c.now - make_interval(secs => ${settleSeconds}),
        coalesce((select min(xact_start) from pg_stat_activity
          where datname = current_database() and backend_type = 'client backend' and xact_start is not null
            and pid <> pg_backend_pid()), 'infinity')
      ) as until
      from clock c
    ),
    daily as (
      select (date_trunc('day', (c.now at time zone 'Africa/Lagos') - make_interval(hours => ${DAILY_ALERT_HOUR_LAGOS}))
        + make_interval(hours => ${DAILY_ALERT_HOUR_LAGOS})) at time zone 'Africa/Lagos' as last_hour
      from clock c
    )
    select u.id as user_id, u.email, c.business_name, u.watchlist_alerts_after::text as after, e.until::text as until,
      e.matches, e.changes
    from users u
    join companies c on c.id = u.company_id and c.status = 'active'
    cross join horizon h
    cross join daily d
    cross join lateral (
      select max(created_at) as until, min(created_at) as since,
        count(*) filter (where type = 'watchlist.match') as matches,
        count(*) filter (where type <> 'watchlist.match') as changes
      from (
        select type, created_at from webhook_events
        where company_id = u.company_id and watchlist_entry_id is not null
          and created_at > u.watchlist_alerts_after and created_at < h.until
        order by created_at
        limit ${EVENTS_PER_MAIL}
      ) counted
    ) e
    where u.watchlist_alerts_after is not null and u.status = 'active' and u.role in ('analyst', 'admin')
      and e.until is not null
      and (not u.watchlist_alerts_daily or (e.since < d.last_hour and h.until >= d.last_hour))
      and (u.watchlist_alerts_failed_at is null or u.watchlist_alerts_failed_at < now() - interval '1 hour')
    order by u.watchlist_alerts_failed_at nulls first, u.watchlist_alerts_after, u.id
    limit ${limit}`.execute(db);
  return result.rows.map((row) => ({ ...row, matches: Number(row.matches), changes: Number(row.changes) }));
}

/**
 * Records that a person was told up to `until`, unless they turned their alerts off or on again
 * meanwhile (their time is no longer `after`): then their own choice stands.
 */
export async function markTold(db: Db, userId: string, after: string, until: string): Promise<void> {
  await sql`update users set watchlist_alerts_after = ${until}::timestamptz, watchlist_alerts_failed_at = null
    where id = ${userId} and watchlist_alerts_after = ${after}::timestamptz`.execute(db);
}

/** A mail to the person failed: they are tried again in an hour, after the others. */
export async function markFailed(db: Db, userId: string): Promise<void> {
  await sql`update users set watchlist_alerts_failed_at = now() where id = ${userId}`.execute(db);
}
