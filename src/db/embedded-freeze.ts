import type { PGlite } from '@electric-sql/pglite';
import { openPglite } from './embedded.js';

/** The ages past which a database is vacuumed; PostgreSQL's autovacuum settings unless given (tests). */
export interface FreezeLimits {
  /** `autovacuum_freeze_max_age`: 200 million transactions by default. */
  freezeMaxAge?: number | undefined;
  /** `autovacuum_multixact_freeze_max_age`: 400 million multixacts by default. */
  multixactFreezeMaxAge?: number | undefined;
}

/**
 * The data directory's databases, other than the one connected to, whose oldest transaction id
 * (or multixact) is older than autovacuum would let it get. Parameters: the two limits, null for
 * the server's settings. A database left invalid by an interrupted DROP DATABASE
 * (`datconnlimit = -2`) cannot be connected to, and PostgreSQL leaves it out of the reckoning too.
 */
export const OTHER_DATABASES_DUE = `
  select datname as name from pg_database
  where datname <> current_database() and datconnlimit <> -2
    and (age(datfrozenxid) > coalesce($1::int, current_setting('autovacuum_freeze_max_age')::int)
      or mxid_age(datminmxid) > coalesce($2::int, current_setting('autovacuum_multixact_freeze_max_age')::int))
  order by datname`;

export const limitParameters = (limits: FreezeLimits) => [limits.freezeMaxAge ?? null, limits.multixactFreezeMaxAge ?? null];

export interface FrozenAtStart {
  /** PGlite, open on the service's database again. */
  pglite: PGlite;
  frozen: string[];
  /** What could not be done, in words for standard error. */
  problems: string[];
}

/**
 * Vacuums the embedded data directory's other databases (template0 and template1) when they are
 * past the freeze age, and gives back PGlite open on the service's database again (decision 0106).
 *
 * A database's oldest transaction id only advances when that database is vacuumed, and the data
 * directory's oldest is the oldest of all its databases. On a server autovacuum vacuums each,
 * template0 included. PGlite has no autovacuum, and its one backend is connected to one database,
 * so the `database.upkeep` job keeps only that one: the others are vacuumed here, each opened on
 * its own in turn while the service's database is closed (single-user mode, as PGlite is, may
 * connect to template0). Left alone, they hold the commit log's truncation back for ever, and
 * single-user mode does not stop writes at the wraparound limit as a server does: the counter
 * would go past it. This happens at start-up, once every 200 million transactions; the job warns
 * when a long-running service needs a restart for it.
 *
 * `vacuum (freeze)`, as autovacuum vacuums a database that takes no connections: the templates
 * are small (about a second for both), and fully frozen they are not due again for as long.
 * A failure is reported, not fatal, and ends the round: the service's database is opened again
 * only after every other instance is closed, so two backends never write one data directory.
 */
export async function withOtherDatabasesFrozen(main: PGlite, dataDir: string, limits: FreezeLimits = {}): Promise<FrozenAtStart> {
  let due: string[];
  try {
    due = (await main.query<{ name: string }>(OTHER_DATABASES_DUE, limitParameters(limits))).rows.map((row) => row.name);
  } catch (error) {
    return {
      pglite: main,
      frozen: [],
      problems: [`could not read the age of the embedded template databases: ${(error as Error).message}`],
    };
  }
  if (due.length === 0) return { pglite: main, frozen: [], problems: [] };
  await main.close();
  const frozen: string[] = [];
  const problems: string[] = [];
  for (const name of due) {
    let other: PGlite;
    try {
      other = await openPglite(dataDir, [], name);
    } catch (error) {
      problems.push(`could not open the embedded database ${name} to vacuum it: ${(error as Error).message}`);
      break;
    }
    try {
      await other.exec('vacuum (freeze)');
      frozen.push(name);
    } catch (error) {
      problems.push(`could not vacuum the embedded database ${name}: ${(error as Error).message}`);
    }
    // A close that fails fails the start: better than a second backend on the same files.
    await other.close();
    if (problems.length > 0) break;
  }
  return { pglite: await openPglite(dataDir), frozen, problems };
}
