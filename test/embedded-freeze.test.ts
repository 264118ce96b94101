import fs from 'node:fs';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { keepTablesUp } from '../src/db/table-upkeep.js';
import { createTestDatabase, engine } from './helpers/test-database.js';

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

describe.skipIf(engine !== 'embedded')('the embedded data directory’s other databases, against wraparound', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are named by the upkeep job when past the freeze age, and vacuumed by the next start', async () => {
    const first = await createTestDatabase();
    const dataDir = first.dataDir;
    let reopened: DatabaseHandle | undefined;
    try {
      // 60 transactions and a limit of 50 stand for 200 million.
      await age(first, 60);
      const before = await agesOf(first);
      expect(before.template0).toBeGreaterThan(50);
      expect(before.template1).toBeGreaterThan(50);
      const run = await keepTablesUp(first, { freezeMaxAge: 50 });
      expect(run.restartToFreeze).toEqual(['template0', 'template1']);
      // The job's own database is not among them: it vacuums that one itself.
      expect(run.done).toContainEqual({ table: 'pg_catalog.pg_class', action: 'vacuum', reason: 'wraparound' });
      await first.close({ keepFiles: true });

      const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      reopened = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, freezeLimits: { freezeMaxAge: 50 } });
      expect(said).toHaveBeenCalledWith(
        'Vacuumed the embedded databases template0, template1 against transaction id wraparound.\n',
      );
      const after = await agesOf(reopened);
      // Frozen: their oldest id is the newest there was when they were vacuumed, a few transactions ago.
      expect(after.template0).toBeLessThan(10);
      expect(after.template1).toBeLessThan(10);
      expect((await keepTablesUp(reopened, { freezeMaxAge: 50 })).restartToFreeze).toEqual([]);
      // The service's database opened again, data and all.
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(reopened.db);
      expect(rows[0]?.n).toBeGreaterThan(0);
    } finally {
      await reopened?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('are left alone at a start while under the freeze age', async () => {
    const first = await createTestDatabase();
    const dataDir = first.dataDir;
    await age(first, 60);
    await first.close({ keepFiles: true });
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const reopened = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });
    try {
      expect(said).not.toHaveBeenCalled();
      const ages = await agesOf(reopened);
      expect(ages.template0).toBeGreaterThan(50);
    } finally {
      await reopened.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
