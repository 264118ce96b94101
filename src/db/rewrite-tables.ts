import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * Rewrites tables (VACUUM FULL) so that the old row versions of texts taken out of them leave their
 * files: a plain vacuum frees that space but leaves the bytes in the page (decision 0135). It takes
 * the table's exclusive lock while it runs, so it is run only on a table just cleaned, by the
 * process that migrates, on a connection without a statement timeout.
 *
 * Only the table's owner may: PostgreSQL answers anyone else with a warning nothing reads, so the
 * owner is told here what to run instead.
 */
export async function rewriteTables(
  db: Kysely<Database>,
  tables: Iterable<string>,
  tell: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  for (const table of tables) {
    const { rows } = await sql<{ owned: boolean | null }>`
      select pg_has_role((select relowner from pg_class where oid = to_regclass(${table})), 'USAGE') as owned`.execute(db);
    if (rows[0]?.owned === false) {
      tell(`redflag: ${table} still holds old copies of texts now sealed; its owner should run VACUUM FULL ${table};`);
      continue;
    }
    await sql`vacuum full ${sql.table(table)}`.execute(db);
  }
}
