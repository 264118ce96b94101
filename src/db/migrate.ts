import { type Kysely, type MigrationResultSet, Migrator, sql } from 'kysely';
import { syncBanks } from '../modules/banks/banks.repository.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export class MigrationError extends Error {}

/**
 * Kysely looks for its bookkeeping tables in every schema unless told which one: on a server where
 * another schema (another test file, another app) already has them, it would skip creating its own.
 */
async function migratorFor(db: Kysely<Database>): Promise<Migrator> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrationTableSchema = rows[0]?.schema ?? 'public';
  return new Migrator({ db, migrationTableSchema, provider: { getMigrations: async () => migrations } });
}

function check(result: MigrationResultSet): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`Migration ${failed} failed: ${(result.error as Error).message ?? String(result.error)}`);
  }
  return (result.results ?? []).map((r) => r.migrationName);
}

/** Brings the schema to the latest migration and loads the reference data; safe to run again. */
export async function migrateToLatest(db: Kysely<Database>): Promise<{ applied: string[] }> {
  const applied = check(await (await migratorFor(db)).migrateToLatest());
  await syncBanks(db);
  return { applied };
}

export async function migrateDown(db: Kysely<Database>): Promise<{ reverted: string[] }> {
  return { reverted: check(await (await migratorFor(db)).migrateDown()) };
}
