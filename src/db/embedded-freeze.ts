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
 * the server's settings.
 */
export const OTHER_DATABASES_DUE = `
  select datname as name from pg_database
  where datname <> current_database()
    and (age(datfrozenxid) > coalesce($1::int, current_setting('autovacuum_freeze_max_age')::int)
      or mxid_age(datminmxid) > coalesce($2::int, current_setting('autovacuum_multixact_freeze_max_age')::int))
  order by datname`;

export const limitParameters = (limits: FreezeLimits) => [limits.freezeMaxAge ?? null, limits.multixactFreezeMaxAge ?? null];

/**
 * Vacuums the embedded data directory's other databases (template0 and template1) when they are
 * past the freeze age, and gives back PGlite open on the service's database again (decision 0106).
 *
 * PostgreSQL stops taking writes when the oldest transaction id of any database in the data
 * directory is about two billion transactions old, and a database's oldest id only advances when
 * that database is vacuumed. On a server autovacuum does so, template0 included. PGlite has no
 * autovacuum, and its one backend is connected to one database, so the `database.upkeep` job can
 * keep only that one: the others are vacuumed here, each opened on its own in turn while the
 * service's database is closed (single-user mode, as PGlite is, may connect to template0). This
 * happens at start-up, once every 200 million transactions; the job warns if a long-running
 * service needs a restart for it.
 *
 * `vacuum (freeze)`, as autovacuum vacuums a database that takes no connections: the templates
 * are tiny (well under a second each), and fully frozen they are not due again for as long.
 * A database that fails to vacuum is reported, not fatal: the stop limit is still far off.
 */
export async function withOtherDatabasesFrozen(
  main: PGlite,
  dataDir: string,
  limits: FreezeLimits = {},
): Promise<{ pglite: PGlite; frozen: string[]; failed: Array<{ name: string; error: string }> }> {
  let due: string[];
  try {
    due = (await main.query<{ name: string }>(OTHER_DATABASES_DUE, limitParameters(limits))).rows.map((row) => row.name);
  } catch (error) {
    return { pglite: main, frozen: [], failed: [{ name: 'template0 and template1', error: (error as Error).message }] };
  }
  if (due.length === 0) return { pglite: main, frozen: [], failed: [] };
  await main.close();
  const frozen: string[] = [];
  const failed: Array<{ name: string; error: string }> = [];
  for (const name of due) {
    try {
      const other = await openPglite(dataDir, [], name);
      try {
        await other.exec('vacuum (freeze)');
        frozen.push(name);
      } finally {
        await other.close();
      }
    } catch (error) {
      failed.push({ name, error: (error as Error).message });
    }
  }
  return { pglite: await openPglite(dataDir), frozen, failed };
}
