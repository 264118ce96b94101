import { type Kysely, type MigrationResultSet, Migrator, sql } from 'kysely';
import { syncBanks } from '../modules/banks/banks.repository.js';
import { migrations } from './migrations/index.js';
import { rewriteTables } from './rewrite-tables.js';
import type { Database } from './schema.js';

export class MigrationError extends Error {}

/**
 * Kysely looks for its bookkeeping tables in every schema unless told which one: on a server where
 * another schema (another test file, another app) already has them, it would skip creating its own.
 */
async function migratorFor(db: Kysely<Database>): Promise<Migrator> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrationTableSchema = rows[0]?.schema ?? 'public';
  // Migration numbers are handed out per issue and land in any order (0011 may be applied before
  // 0010 reaches main): a database that ran a later number still gets an earlier one that lands later.
  return new Migrator({
    db,
    migrationTableSchema,
    allowUnorderedMigrations: true,
    provider: { getMigrations: async () => migrations },
  });
}

function check(result: MigrationResultSet): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`Migration ${failed} failed: ${(result.error as Error).message ?? String(result.error)}`);
  }
  return (result.results ?? []).map((r) => r.migrationName);
}

/**
 * Whether every migration is already recorded. Kysely's migrator checks the same, but its checks
 * (creating its tables if missing, taking its lock) cost a second and a half of a cold embedded
 * start at 1,000,000 identifiers; this is two short queries.
 */
async function isUpToDate(db: Kysely<Database>): Promise<boolean> {
  const table = await sql<{ exists: boolean }>`select to_regclass('kysely_migration') is not null as exists`.execute(db);
  if (!table.rows[0]?.exists) return false;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  // Exactly our list: anything else (a newer database, a missing one) goes through Kysely's checks.
  const recorded = new Set(rows.map((r) => r.name));
  const known = Object.keys(migrations);
  return recorded.size === known.length && known.every((name) => recorded.has(name));
}

/**
 * Tables a migration rewrote to take clear text out of, rewritten once after it ran (rewrite-tables.ts;
 * VACUUM FULL cannot run in the migration's own transaction). 0035 took the watchlist entries' `ref`
 * out of webhook events.
 */
const VACUUM_AFTER: Readonly<Record<string, readonly string[]>> = {
  '2026_11_29_0035_member_notes_sealed': ['webhook_events'],
};

/** Brings the schema to the latest migration and loads the reference data; safe to run again. */
export async function migrateToLatest(db: Kysely<Database>): Promise<{ applied: string[] }> {
  if (await isUpToDate(db)) {
    await syncBanks(db);
    return { applied: [] };
  }
  const applied = check(await (await migratorFor(db)).migrateToLatest());
  await rewriteTables(db, new Set(applied.flatMap((name) => VACUUM_AFTER[name] ?? [])));
  await syncBanks(db);
  return { applied };
}

export async function migrateDown(db: Kysely<Database>): Promise<{ reverted: string[] }> {
  return { reverted: check(await (await migratorFor(db)).migrateDown()) };
}
