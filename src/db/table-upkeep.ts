import { CompiledQuery, type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle, Engine } from './database.js';
import { type FreezeLimits, limitParameters, OTHER_DATABASES_DUE } from './embedded-freeze.js';
import type { Database } from './schema.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** What the upkeep did to one table. */
export interface TableUpkeep {
  /** The table's name; schema-qualified when outside the service's schema (a system catalog). */
  table: string;
  action: 'analyze' | 'vacuum analyze' | 'vacuum';
  /** Which rule asked for it (see tablesDue and tablesNearWraparound). */
  reason: 'no statistics' | 'changed' | 'dead rows' | 'inserted' | 'grown' | 'wraparound';
}

/**
 * Embedded: a table is vacuumed for its inserts once this many rows came since its last vacuum, if
 * autovacuum's rule (a fifth of the table) has not called for it before (decision 0112). A vacuum
 * after inserts reads the pages they filled, on Node's main thread: 86 ms after 200,000 audit rows,
 * 1,169 ms after 1,000,000, so a rule that grows with the table would stall a large registry for
 * seconds at a time.
 */
export const EMBEDDED_INSERT_VACUUM_CAP = 100_000;

/** When a table's (or, embedded, another database's) oldest unfrozen id calls for a vacuum; autovacuum's settings unless given. */
export type UpkeepOptions = FreezeLimits & {
  /** Embedded: EMBEDDED_INSERT_VACUUM_CAP unless given (a test's smaller table). */
  insertVacuumCap?: number;
};

export interface UpkeepRun {
  done: TableUpkeep[];
  /** Tables whose statement failed; the others were still done. */
  failed: Array<{ table: string; error: string }>;
  /**
   * Embedded: the data directory's other databases (template0, template1) past the freeze age,
   * which only a start of the service vacuums (embedded-freeze.ts).
   */
  restartToFreeze: string[];
}

interface DueRow {
  schema: string;
  table: string;
  /** Analysed since the database started: PGlite forgets when at every stop (`last_analyze`). */
  analysed_lately: boolean;
  no_statistics: boolean;
  changed: boolean;
  dead_rows: boolean;
  inserted: boolean;
  grown: boolean;
}

/**
 * How long one analyse or vacuum may take, on both sides (the server stops it then too, rather
 * than go on holding its lock after the client gave up). The serving pool's 5 s statement timeout
 * would cancel the analyse of a large table read from a cold cache, every minute, without end; this
 * bound only keeps a run inside the job's 15-minute lease.
 */
const STATEMENT_LIMIT_MS = 10 * 60 * 1000;
/** Waiting behind an operator's VACUUM FULL or REINDEX of the table: the next run tries again. */
const LOCK_WAIT = '10s';

/**
 * Keeps the planner's statistics (and, where nothing else does, the tables' vacuum) for the
 * service's own schema, run by the `database.upkeep` job (decision 0105).
 *
 * Without statistics PostgreSQL guesses that `status = 'published' and listing_status = 'listed'`
 * keeps 25 reports in a million, and plans a search as a walk over every listed report: on the
 * bench's 1,000,000 identifiers, 350–855 ms a search on the server and 649 ms (median) embedded,
 * instead of 1.6 ms, and dearer as the registry grows.
 * Tables go without statistics in two ways:
 * - the embedded engine (PGlite) is PostgreSQL in single-user mode, which has no autovacuum: its
 *   tables were never analysed, nor vacuumed, unless someone did it by hand;
 * - on a server, after `pg_upgrade` (before PostgreSQL 18 it carries no statistics and resets the
 *   counters autovacuum goes by) until autovacuum next looks.
 *
 * So on both engines a table never analysed is analysed; on the embedded engine autovacuum's
 * thresholds are applied as well. On a server the rest stays autovacuum's, which its operator tunes.
 */
export async function keepTablesUp(
  database: Pick<DatabaseHandle, 'db' | 'engine' | 'pool' | 'refusal'>,
  options: UpkeepOptions = {},
): Promise<UpkeepRun> {
  const run: UpkeepRun = { done: [], failed: [], restartToFreeze: [] };
  // Its statements take the pool's connection directly, past the serving pool's check: each table
  // asks first whether work may still start (the embedded disk reserve, disk-reserve.ts).
  const mayStart = () => {
    const refused = database.refusal?.();
    if (refused) throw refused;
  };
  const insertVacuumCap = options.insertVacuumCap ?? EMBEDDED_INSERT_VACUUM_CAP;
  for (const row of await tablesDue(database.db, database.engine === 'embedded', insertVacuumCap)) {
    mayStart();
    const reason: TableUpkeep['reason'] = row.dead_rows
      ? 'dead rows'
      : row.inserted
        ? 'inserted'
        : row.grown
          ? 'grown'
          : row.no_statistics
            ? 'no statistics'
            : 'changed';
    const vacuum = row.dead_rows || row.inserted || row.grown;
    // Inserts alone call for a vacuum (the visibility map, freezing) but not for new statistics
    // before autovacuum's analyse rule does: under the cap above that would be sooner. But for the
    // first vacuum since a start: the vacuum sets the size the "grown" rule compares with, and the
    // stop lost the analyse rule's counter, so a large table restarted more often than a tenth of
    // it changes would never be analysed again (decision 0112).
    const analyse = row.no_statistics || row.changed || row.dead_rows || row.grown || !row.analysed_lately;
    const table = `${pg.escapeIdentifier(row.schema)}.${pg.escapeIdentifier(row.table)}`;
    try {
      // Vacuum and analyse as two statements, a connection taken for each: on the embedded
      // engine's one connection, requests run between them (analysing a table of 1,000,000 rows
      // there takes about 0.3–0.4 s, vacuuming it 0.2 s; PGlite runs on Node's main thread, so nothing
      // else does meanwhile). VACUUM cannot run in a transaction.
      if (vacuum) await onOwnConnection(database.pool, [`vacuum ${table}`], database.engine);
      if (analyse) {
        await onOwnConnection(
          database.pool,
          [
            'begin',
            `set local statement_timeout = ${STATEMENT_LIMIT_MS}`,
            `set local lock_timeout = '${LOCK_WAIT}'`,
            `analyze ${table}`,
            'commit',
          ],
          database.engine,
        );
      }
      run.done.push({ table: row.table, action: vacuum && analyse ? 'vacuum analyze' : vacuum ? 'vacuum' : 'analyze', reason });
    } catch (error) {
      // One table's failure (a lock not granted, the table dropped by a migration) must not keep the others waiting.
      run.failed.push({ table: row.table, error: (error as Error).message });
    }
  }
  if (database.engine !== 'embedded') return run;
  for (const row of await tablesNearWraparound(database.db, options)) {
    mayStart();
    try {
      // Past vacuum_freeze_table_age (at most 95% of the freeze age) PostgreSQL makes any vacuum
      // aggressive: it visits every page not yet frozen, as autovacuum's own anti-wraparound run does.
      await onOwnConnection(database.pool, [`vacuum ${row.qualified}`], database.engine);
      run.done.push({ table: row.table, action: 'vacuum', reason: 'wraparound' });
    } catch (error) {
      run.failed.push({ table: row.table, error: (error as Error).message });
    }
  }
  try {
    const others = await database.db.executeQuery<{ name: string }>(
      CompiledQuery.raw(OTHER_DATABASES_DUE, limitParameters(options)),
    );
    run.restartToFreeze = others.rows.map((row) => row.name);
  } catch (error) {
    run.failed.push({ table: 'the age of the template databases', error: (error as Error).message });
  }
  return run;
}

/**
 * Autovacuum's fourth duty, which the embedded engine has no one else for: a table whose oldest
 * unfrozen transaction id is older than `autovacuum_freeze_max_age` (200 million transactions by
 * default) is vacuumed, so that the database's oldest id can advance. Left alone, some two billion
 * transactions on (and every audited search is a transaction) a server stops taking writes, and
 * PGlite, single-user mode, does not even stop: rows never frozen would seem written in the future. The
 * system catalogs count too (they are the database's as much as the service's tables), and so do
 * TOAST tables, which a vacuum of their table skips when their pages are all visible; both are
 * outside the statistics views, so this reads `pg_class` for every table the role may vacuum.
 * (Indexes, views, sequences and partitioned tables have no `relfrozenxid`.)
 *
 * The same goes for multixacts (ids of rows locked by more than one transaction), past
 * `autovacuum_multixact_freeze_max_age`; their own limit is as far off.
 *
 * PGlite's other databases (template0 and template1) count towards the data directory's oldest id too, but the one
 * database its backend is connected to cannot vacuum them: a start of the service does
 * (embedded-freeze.ts, decision 0106), and the run names those due meanwhile.
 */
async function tablesNearWraparound(
  db: Kysely<Database>,
  limits: FreezeLimits,
): Promise<Array<{ table: string; qualified: string }>> {
  const limit = limits.freezeMaxAge ?? sql`current_setting('autovacuum_freeze_max_age')::int`;
  const multixactLimit = limits.multixactFreezeMaxAge ?? sql`current_setting('autovacuum_multixact_freeze_max_age')::int`;
  const { rows } = await sql<{ schema: string; name: string; here: boolean }>`
    select n.nspname as schema, c.relname as name, n.nspname = current_schema() as here
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'm', 't') and c.relpersistence <> 't'
      and (age(c.relfrozenxid) > ${limit} or mxid_age(c.relminmxid) > ${multixactLimit})
      and pg_has_role(c.relowner, 'USAGE')
    order by age(c.relfrozenxid) desc`.execute(db);
  return rows.map((row) => ({
    table: row.here ? row.name : `${row.schema}.${row.name}`,
    qualified: `${pg.escapeIdentifier(row.schema)}.${pg.escapeIdentifier(row.name)}`,
  }));
}

/**
 * Runs statements on a connection of the pool's own, not through Kysely: only there can a query
 * set its own client-side timeout, which the serving pool otherwise puts at its statement timeout
 * plus a second. Exported for its test.
 *
 * After a failure the transaction is rolled back before the connection goes back: on the embedded
 * engine it is the one connection everything shares, and a transaction left aborted there would
 * fail every request after it. A server connection is dropped only when the connection itself
 * failed (as the serving pool does, prepared-pool.ts); PGlite's is never dropped.
 */
export async function onOwnConnection(pool: pg.Pool, statements: string[], engine: Engine): Promise<void> {
  const client = await pool.connect();
  try {
    for (const text of statements) {
      // node-postgres reads a query's own `query_timeout` (lib/client.js), which its types leave out.
      const query: pg.QueryConfig & { query_timeout: number } = { text, query_timeout: STATEMENT_LIMIT_MS };
      await client.query(query);
    }
  } catch (error) {
    // Outside a transaction `rollback` only warns.
    const rolledBack = await client.query('rollback').then(
      () => true,
      () => false,
    );
    const broken = engine === 'server' && (!rolledBack || isDatabaseUnavailable(error));
    client.release(broken ? (error as Error) : undefined);
    throw error;
  }
  client.release();
}

/**
 * The schema's tables that need the upkeep, read from the cumulative statistics (`pg_stat_user_tables`)
 * and `pg_class` (and, embedded, each table's size, which takes a share lock that waits for
 * nothing the service does). Only tables the service's role owns (so may analyse).
 *
 * "No statistics" is `reltuples = -1`: never vacuumed nor analysed, as a table in PGlite or after
 * `pg_upgrade` before PostgreSQL 18 (its counters reset too, so they cannot tell). An analyse sets
 * it, to 0 for an empty table, which therefore comes back only through the other rules.
 *
 * The other rules are autovacuum's, with the settings' thresholds (`-1` for the insert threshold
 * turns it off; PostgreSQL 18's cap on the dead-row threshold applies where the setting exists),
 * and a cap of our own on the insert threshold (EMBEDDED_INSERT_VACUUM_CAP).
 * Not applied: PostgreSQL 18's scaling of the insert threshold by the table's unfrozen part, and
 * per-table autovacuum settings. `reltuples` = -1 counts as 0, as autovacuum counts it.
 *
 * Embedded, one rule of our own: PGlite (0.5) comes back from every stop, clean or not, with
 * those counters at zero, so a registry restarted more often than a tenth of it changes would never
 * come due by them. What survives is `relpages`, the size the last vacuum, analyse or index build
 * saw: until the table's first vacuum or analyse after a start (while the counters cannot be
 * trusted), a table grown by more than `autovacuum_analyze_scale_factor` of it (plus a page) is
 * vacuumed and analysed ("grown"). From then on the counters tell, as on a server. Deletions do not
 * grow a table, so rows deleted before a restart wait for the next growth.
 */
async function tablesDue(db: Kysely<Database>, standInForAutovacuum: boolean, insertVacuumCap: number): Promise<DueRow[]> {
  const setting = (name: string) => sql`current_setting(${name})::float8`;
  const rows = sql`greatest(c.reltuples, 0)`;
  // PostgreSQL 18's cap on the dead-row threshold; -1 (or an older server, without it) is no cap.
  const maxDeadThreshold = sql`coalesce(nullif(current_setting('autovacuum_vacuum_max_threshold', true)::float8, -1), 'infinity')`;
  const { rows: due } = await sql<DueRow>`
    select schema_name as schema, table_name as table, analysed_lately, no_statistics, changed, dead_rows, inserted, grown from (
      select s.schemaname as schema_name, s.relname as table_name,
        s.last_analyze is not null or s.last_autoanalyze is not null as analysed_lately,
        c.reltuples = -1 as no_statistics,
        (${standInForAutovacuum} and s.n_mod_since_analyze >
          ${setting('autovacuum_analyze_threshold')} + ${setting('autovacuum_analyze_scale_factor')} * ${rows}) as changed,
        (${standInForAutovacuum} and s.n_dead_tup > least(${maxDeadThreshold},
          ${setting('autovacuum_vacuum_threshold')} + ${setting('autovacuum_vacuum_scale_factor')} * ${rows})) as dead_rows,
        (${standInForAutovacuum} and ${setting('autovacuum_vacuum_insert_threshold')} >= 0 and s.n_ins_since_vacuum > least(
          ${setting('autovacuum_vacuum_insert_threshold')} + ${setting('autovacuum_vacuum_insert_scale_factor')} * ${rows},
          ${insertVacuumCap}::float8)) as inserted,
        (${standInForAutovacuum} and c.reltuples <> -1 and s.last_vacuum is null and s.last_analyze is null
          and pg_relation_size(c.oid) / current_setting('block_size')::int >
          greatest(c.relpages, 0) * (1 + ${setting('autovacuum_analyze_scale_factor')}) + 1) as grown
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema() and pg_has_role(c.relowner, 'USAGE')
    ) t
    where no_statistics or changed or dead_rows or inserted or grown
    order by table_name`.execute(db);
  return due;
}

/**
 * One line for the operator of a server whose autovacuum is off (or blind: `track_counts` off), or
 * undefined. The job analyses tables never analysed, but on a server it leaves the rest to
 * autovacuum; without it a registry's statistics stay as they were when the tables were small.
 * Said once at start-up beside the buffer cache advice (decision 0101), not acted on: the setting
 * is the server's, and its operator may vacuum on a schedule of their own.
 */
export function autovacuumAdvice(settings: { autovacuum: string; trackCounts: string }): string | undefined {
  if (settings.autovacuum === 'on' && settings.trackCounts === 'on') return undefined;
  const off = settings.autovacuum === 'on' ? 'track_counts' : 'autovacuum';
  return (
    `PostgreSQL's ${off} is off, so nothing analyses the registry's tables as they grow: searches are ` +
    'planned on statistics from when the tables were small, and slow down. Turn it on, or run analyze ' +
    'after every large change (README, "Planner statistics").'
  );
}

/** The advice, or undefined when there is none or the settings could not be read (it must never stop a start). */
export async function autovacuumAdviceOf(db: Kysely<Database>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ autovacuum: string; track_counts: string }>`
      select current_setting('autovacuum') as autovacuum, current_setting('track_counts') as track_counts`.execute(db);
    const row = rows[0];
    return row ? autovacuumAdvice({ autovacuum: row.autovacuum, trackCounts: row.track_counts }) : undefined;
  } catch {
    return undefined;
  }
}
