import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { serverSchemaName, serverUrl } from './helpers/test-database.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('migrations that land out of order', () => {
  it('applies an earlier-numbered migration to a database that already ran a later one', { timeout: 120_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-migration-order-'));
    dirs.push(dataDir);
    const database = await openDatabase({
      databaseUrl: serverUrl,
      databaseSchema: serverUrl ? serverSchemaName() : undefined,
      dataDir,
      poolSize: 1,
    });
    try {
      // A database migrated before 0031 landed: everything else, 0032 and later included (none of
      // which needs 0031's columns).
      const { '2026_11_28_0031_watchlist_import_receiver': _receiver, ...withoutReceiver } = migrations;
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
      const early = new Migrator({
        db: database.db,
        migrationTableSchema: rows[0]?.schema ?? 'public',
        provider: { getMigrations: async () => withoutReceiver },
      });
      expect((await early.migrateToLatest()).error).toBeUndefined();

      const { applied } = await migrateToLatest(database.db);
      expect(applied).toEqual(['2026_11_28_0031_watchlist_import_receiver']);
      const column = await sql<{ ok: boolean }>`select exists (select 1 from information_schema.columns
        where table_schema = current_schema() and table_name = 'watchlist_imports' and column_name = 'receiving_by') as ok`.execute(
        database.db,
      );
      expect(column.rows[0]?.ok).toBe(true);
    } finally {
      await database.close();
    }
  });
});
