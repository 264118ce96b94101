import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { keepTablesUp } from '../src/db/table-upkeep.js';
import { createTestDatabase, engine, type TestDatabase } from './helpers/test-database.js';

/** Uses up transaction ids, as the service's writes and audited searches do. */
async function age(database: DatabaseHandle, transactions: number) {
  for (let n = 0; n < transactions; n++) await sql`select txid_current()`.execute(database.db);
}

/** The age of each database of the data directory, by name. */
async function agesOf(database: DatabaseHandle): Promise<Record<string, number>> {
  const { rows } = await sql<{ name: string; age: number }>`
    select datname as name, age(datfrozenxid) as age from pg_database order by datname`.execute(database.db);
  return Object.fromEntries(rows.map((row) => [row.name, row.age]));
}

/** The database holding the data directory's oldest transaction id, as the last checkpoint recorded it. */
async function oldestDatabaseOf(database: DatabaseHandle): Promise<string | undefined> {
  await sql`checkpoint`.execute(database.db);
  const { rows } = await sql<{ name: string }>`
    select d.datname as name from pg_control_checkpoint() c join pg_database d on d.oid = c.oldest_xid_dbid`.execute(database.db);
  return rows[0]?.name;
}

/** A migrated embedded data directory whose databases are 60 transactions older than their last vacuum; 50 then stands for 200 million. */
async function agedDataDir(): Promise<string> {
  const first: TestDatabase = await createTestDatabase();
  try {
    await age(first, 60);
  } finally {
    await first.close({ keepFiles: true });
  }
  return first.dataDir;
}

describe.skipIf(engine !== 'embedded')('the embedded data directory’s other databases, against wraparound', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are named by the upkeep job when past the freeze age, and vacuumed by the next start', { timeout: 120_000 }, async () => {
    const dataDir = await agedDataDir();
    let database: DatabaseHandle | undefined;
    try {
      database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });
      const before = await agesOf(database);
      expect(before.template0).toBeGreaterThan(50);
      expect(before.template1).toBeGreaterThan(50);
      expect(await oldestDatabaseOf(database)).toMatch(/^template/);
      const run = await keepTablesUp(database, { freezeMaxAge: 50 });
      expect(run.failed).toEqual([]);
      expect(run.restartToFreeze).toEqual(['template0', 'template1']);
      // The job vacuums its own database itself.
      expect(run.done).toContainEqual({ table: 'pg_catalog.pg_class', action: 'vacuum', reason: 'wraparound' });
      await database.close();
      database = undefined;

      const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, freezeLimits: { freezeMaxAge: 50 } });
      expect(said.mock.calls).toEqual([
        ['Vacuumed the embedded databases template0, template1 against transaction id wraparound.\n'],
      ]);
      const after = await agesOf(database);
      // Frozen: their oldest id is the newest there was when they were vacuumed, a few transactions ago.
      expect(after.template0).toBeLessThan(10);
      expect(after.template1).toBeLessThan(10);
      // What it was for: the data directory's oldest id is no longer a template's.
      expect(await oldestDatabaseOf(database)).toBe('postgres');
      expect((await keepTablesUp(database, { freezeMaxAge: 50 })).restartToFreeze).toEqual([]);
      // The service's database opened again, data and all.
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(database.db);
      expect(rows[0]?.n).toBeGreaterThan(0);
    } finally {
      await database?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('are left alone at a start while under the freeze age', { timeout: 60_000 }, async () => {
    const dataDir = await agedDataDir();
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });
    try {
      expect(said).not.toHaveBeenCalled();
      expect((await agesOf(database)).template0).toBeGreaterThan(50);
    } finally {
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('that cannot be opened do not stop the start: it says so, and the ones before are vacuumed', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await agedDataDir();
    // template1's files gone missing (its directory is named after its oid, 1).
    const files = path.join(dataDir, 'pgdata', 'base', '1');
    fs.renameSync(files, `${files}.away`);
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let database: DatabaseHandle | undefined;
    try {
      database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, freezeLimits: { freezeMaxAge: 50 } });
      expect(said.mock.calls.map(([line]) => String(line))).toEqual([
        'Vacuumed the embedded databases template0 against transaction id wraparound.\n',
        expect.stringMatching(
          /^Against transaction id wraparound, could not open the embedded database template1 to vacuum it: /,
        ),
      ]);
      const ages = await agesOf(database);
      expect(ages.template0).toBeLessThan(10);
      expect(ages.template1).toBeGreaterThan(50);
      // The service's database serves as before.
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(database.db);
      expect(rows[0]?.n).toBeGreaterThan(0);
    } finally {
      await database?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
