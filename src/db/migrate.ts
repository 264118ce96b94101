import { type Kysely, type MigrationResultSet, Migrator } from 'kysely';
import { syncBanks } from '../modules/banks/banks.repository.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export class MigrationError extends Error {}

function migratorFor(db: Kysely<Database>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
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
  const applied = check(await migratorFor(db).migrateToLatest());
  await syncBanks(db);
  return { applied };
}

export async function migrateDown(db: Kysely<Database>): Promise<{ reverted: string[] }> {
  return { reverted: check(await migratorFor(db).migrateDown()) };
}
