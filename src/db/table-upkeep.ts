import { type Kysely, sql } from 'kysely';
import type { Engine } from './database.js';
import type { Database } from './schema.js';

/** What the upkeep did to one table. */
export interface TableUpkeep {
  table: string;
  action: 'analyze' | 'vacuum analyze';
  /** Which rule asked for it (see tablesDue). */
  reason: 'no statistics' | 'changed' | 'dead rows' | 'inserted';
}

interface DueRow {
  table: string;
  no_statistics: boolean;
  changed: boolean;
  dead_rows: boolean;
  inserted: boolean;
}

/**
 * Keeps the planner's statistics (and, where nothing else does, the tables' vacuum) for the
 * service's own schema, run by the `database.upkeep` job (decision 0105).
 *
 * Without statistics PostgreSQL guesses that `status = 'published' and listing_status = 'listed'`
 * keeps a few rows in a million, and plans a search as a walk over every listed report: 385 ms a
 * search on the bench's 1,000,000 identifiers instead of 1.2 ms, and dearer as the registry grows.
 * Tables go without statistics in two ways:
 * - the embedded engine (PGlite) is PostgreSQL in single-user mode, which has no autovacuum: its
 *   tables were never analysed, nor vacuumed, unless someone did it by hand;
 * - on a server, after `pg_upgrade` (before PostgreSQL 18 it carries no statistics and resets the
 *   counters autovacuum goes by) or a restore, until autovacuum next looks.
 *
 * So on both engines a table that holds rows and has no statistics is analysed; on the embedded
 * engine, autovacuum's own rules (its thresholds, read from the settings) are applied as well. On a
 * server the rest stays autovacuum's, which its operator tunes.
 */
export async function keepTablesUp(db: Kysely<Database>, engine: Engine): Promise<TableUpkeep[]> {
  const done: TableUpkeep[] = [];
  for (const row of await tablesDue(db, engine === 'embedded')) {
    const reason: TableUpkeep['reason'] = row.dead_rows
      ? 'dead rows'
      : row.inserted
        ? 'inserted'
        : row.no_statistics
          ? 'no statistics'
          : 'changed';
    const action: TableUpkeep['action'] = row.dead_rows || row.inserted ? 'vacuum analyze' : 'analyze';
    // One statement a table: on the embedded engine's one connection, requests run between them
    // (analysing a table of 1,000,000 rows there takes about 0.3 s).
    await sql`${sql.raw(action)} ${sql.id(row.table)}`.execute(db);
    done.push({ table: row.table, action, reason });
  }
  return done;
}

/**
 * The schema's tables that need the upkeep, read from the cumulative statistics (`pg_stat_user_tables`)
 * and `pg_class`, with no lock on any table. A table has no statistics when `pg_stats` has no row
 * for it; one that holds no rows gets none from `analyze` either, so `reltuples` (0 once analysed
 * empty) and the page and live-row counts keep an empty table from being analysed again and again.
 * `reltuples` is -1 for a table never vacuumed nor analysed, counted as 0 in the thresholds, as
 * autovacuum counts it.
 */
async function tablesDue(db: Kysely<Database>, doesAutovacuumsWork: boolean): Promise<DueRow[]> {
  // autovacuum's rule: past `threshold + scale_factor × rows`, with the server's own settings.
  const past = (count: string, setting: string) =>
    sql`${sql.ref(count)} > current_setting(${`${setting}_threshold`})::float8
      + current_setting(${`${setting}_scale_factor`})::float8 * greatest(c.reltuples, 0)`;
  const { rows: due } = await sql<DueRow>`
    select table_name as table, no_statistics, changed, dead_rows, inserted from (
      select s.relname as table_name,
        (not exists (select 1 from pg_stats p where p.schemaname = s.schemaname and p.tablename = s.relname)
          and c.reltuples <> 0 and (c.relpages > 0 or s.n_live_tup > 0)) as no_statistics,
        (${doesAutovacuumsWork} and ${past('s.n_mod_since_analyze', 'autovacuum_analyze')}) as changed,
        (${doesAutovacuumsWork} and ${past('s.n_dead_tup', 'autovacuum_vacuum')}) as dead_rows,
        (${doesAutovacuumsWork} and ${past('s.n_ins_since_vacuum', 'autovacuum_vacuum_insert')}) as inserted
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema()
    ) t
    where no_statistics or changed or dead_rows or inserted
    order by table_name`.execute(db);
  return due;
}
