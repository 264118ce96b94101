import fs from 'node:fs';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import type { Database } from '../src/db/schema.js';
import { autovacuumAdvice, autovacuumAdviceOf, keepTablesUp, onOwnConnection } from '../src/db/table-upkeep.js';
import { createTestDatabase, engine, serverUrl, type TestDatabase } from './helpers/test-database.js';

/** Writes on one connection, then makes that connection publish its table counters at once (they are otherwise sent up to a second or, idle, ten later). */
async function writeAndPublish(db: Kysely<Database>, statements: string[]) {
  await db.connection().execute(async (connection) => {
    for (const statement of statements) await sql.raw(statement).execute(connection);
    await sql`select pg_stat_force_next_flush()`.execute(connection);
  });
  // The flush happens when that connection goes idle; any later statement on it, or a moment, sees it done.
  await db.connection().execute(async (connection) => sql`select 1`.execute(connection));
}

const statisticsOf = async (db: Kysely<Database>, table: string) =>
  Number(
    (
      await sql<{
        n: number;
      }>`select count(*)::int as n from pg_stats where schemaname = current_schema() and tablename = ${table}`.execute(db)
    ).rows[0]?.n,
  );

const upkeepOf = async (database: TestDatabase, table: string) => {
  const run = await keepTablesUp(database);
  expect(run.failed).toEqual([]);
  return run.done.filter((done) => done.table === table);
};

describe(`table upkeep, the database.upkeep job (${engine} engine)`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    // A table of the service's schema that only this file writes, so other tables' upkeep cannot
    // blur what is seen; kept from a server's autovacuum, which could analyse it first.
    await writeAndPublish(database.db, [
      'create table upkeep_probe (id int primary key, status text not null) with (autovacuum_enabled = false)',
      "insert into upkeep_probe select g, 'published' from generate_series(1, 500) g",
    ]);
  });
  afterAll(async () => {
    await database.close();
  });

  it('analyses a table never analysed, on either engine, even with its counters lost (PGlite after any stop, a server after pg_upgrade)', async () => {
    // What pg_upgrade before PostgreSQL 18 leaves: no statistics, no row count, counters at zero.
    await sql`select pg_stat_reset_single_table_counters('upkeep_probe'::regclass)`.execute(database.db);
    const { rows } = await sql<{ reltuples: number; changed: number }>`
      select c.reltuples::float8 as reltuples, s.n_mod_since_analyze::int as changed
      from pg_class c join pg_stat_user_tables s on s.relid = c.oid where c.oid = 'upkeep_probe'::regclass`.execute(database.db);
    expect(rows[0]).toEqual({ reltuples: -1, changed: 0 });
    expect(await statisticsOf(database.db, 'upkeep_probe')).toBe(0);
    expect(await upkeepOf(database, 'upkeep_probe')).toEqual([
      { table: 'upkeep_probe', action: 'analyze', reason: 'no statistics' },
    ]);
    // One row a column.
    expect(await statisticsOf(database.db, 'upkeep_probe')).toBe(2);
    // Done once: the next run finds it up to date.
    expect(await upkeepOf(database, 'upkeep_probe')).toEqual([]);
  });

  it('samples 3,000 rows of audit_events, which every search writes, not 30,000 (decision 0112)', async () => {
    const { rows } = await sql<{ least: number; most: number; columns: number }>`
      select min(attstattarget)::int as least, max(attstattarget)::int as most, count(*)::int as columns
      from pg_attribute where attrelid = 'audit_events'::regclass and attnum > 0 and not attisdropped`.execute(database.db);
    expect(rows[0]).toEqual({ least: 10, most: 10, columns: 13 });
  });

  it('leaves a table emptied and analysed alone: analyse gives it no statistics, so only its row count (0) tells it was analysed', async () => {
    await writeAndPublish(database.db, [
      'create table upkeep_emptied (id int primary key) with (autovacuum_enabled = false)',
      'insert into upkeep_emptied select generate_series(1, 100)',
      'delete from upkeep_emptied',
    ]);
    // Apart, so that the delete's counters are in before the vacuum zeroes them.
    await writeAndPublish(database.db, ['vacuum analyze upkeep_emptied']);
    expect(await statisticsOf(database.db, 'upkeep_emptied')).toBe(0);
    expect(await upkeepOf(database, 'upkeep_emptied')).toEqual([]);
  });

  it('rolls a failed statement’s transaction back and keeps the connection (on the embedded engine it is the only one)', async () => {
    const warm = await database.pool.connect();
    warm.release();
    const connections = database.pool.totalCount;
    await expect(onOwnConnection(database.pool, ['begin', 'select 1 / 0', 'commit'], engine)).rejects.toThrow(/division by zero/);
    expect(database.pool.totalCount).toBe(connections);
    // Left in its aborted transaction, the embedded engine's one connection would refuse this.
    const next = await database.pool.connect();
    try {
      expect((await next.query('select 1 as n')).rows).toEqual([{ n: 1 }]);
    } finally {
      next.release();
    }
  });

  it.runIf(engine === 'server')(
    'waits out a lock on the table past the serving pool’s statement and read timeouts (a cold analyse takes seconds)',
    async () => {
      const serving = await openDatabase({
        databaseUrl: serverUrl,
        databaseSchema: database.schema,
        dataDir: database.dataDir,
        poolSize: 2,
        timeouts: { connectMs: 2_000, statementMs: 200 },
      });
      await writeAndPublish(database.db, [
        'create table upkeep_locked (id int) with (autovacuum_enabled = false)',
        'insert into upkeep_locked select generate_series(1, 10)',
      ]);
      // Another session holds the lock analyse needs for 1.5 s: past 200 ms, and past the client's 1.2 s.
      const holder = await database.pool.connect();
      try {
        await holder.query('begin');
        await holder.query('lock table upkeep_locked in share update exclusive mode');
        const released = new Promise((resolve) => setTimeout(resolve, 1_500)).then(() => holder.query('commit'));
        const run = await keepTablesUp(serving);
        await released;
        expect(run.failed).toEqual([]);
        expect(run.done).toContainEqual({ table: 'upkeep_locked', action: 'analyze', reason: 'no statistics' });
      } finally {
        holder.release();
        await serving.close();
      }
    },
  );

  if (engine === 'embedded') {
    it('does autovacuum’s work on the embedded engine, which has none: vacuums past its dead-row threshold, and analyses', async () => {
      // 300 rows rewritten of 500: past both 50 + 20% (vacuum) and 50 + 10% (analyse) of the table.
      await writeAndPublish(database.db, ["update upkeep_probe set status = 'expired' where id <= 300"]);
      expect(await upkeepOf(database, 'upkeep_probe')).toEqual([
        { table: 'upkeep_probe', action: 'vacuum analyze', reason: 'dead rows' },
      ]);
      const { rows } = await sql<{ vacuumed: boolean; dead: number; changed: number }>`
        select last_vacuum is not null as vacuumed, n_dead_tup::int as dead, n_mod_since_analyze::int as changed
        from pg_stat_user_tables where schemaname = current_schema() and relname = 'upkeep_probe'`.execute(database.db);
      expect(rows[0]).toEqual({ vacuumed: true, dead: 0, changed: 0 });
      expect(await upkeepOf(database, 'upkeep_probe')).toEqual([]);
    });

    it('vacuums a table for its inserts once the cap has come, before a fifth of it, and does not analyse it for them alone', async () => {
      await writeAndPublish(database.db, [
        'create table upkeep_appended (id int primary key) with (autovacuum_enabled = false)',
        'insert into upkeep_appended select g from generate_series(1, 5000) g',
      ]);
      expect(await upkeepOf(database, 'upkeep_appended')).toEqual([
        { table: 'upkeep_appended', action: 'vacuum analyze', reason: 'inserted' },
      ]);
      // 300 more: under autovacuum's insert rule (1,000 + 20%) and its analyse rule (50 + 10%).
      await writeAndPublish(database.db, ['insert into upkeep_appended select g from generate_series(5001, 5300) g']);
      expect(await upkeepOf(database, 'upkeep_appended')).toEqual([]);
      const run = await keepTablesUp(database, { insertVacuumCap: 250 });
      expect(run.failed).toEqual([]);
      expect(run.done.filter((done) => done.table === 'upkeep_appended')).toEqual([
        { table: 'upkeep_appended', action: 'vacuum', reason: 'inserted' },
      ]);
      const { rows } = await sql<{ inserted: number; changed: number }>`
        select n_ins_since_vacuum::int as inserted, n_mod_since_analyze::int as changed
        from pg_stat_user_tables where schemaname = current_schema() and relname = 'upkeep_appended'`.execute(database.db);
      expect(rows[0]).toEqual({ inserted: 0, changed: 300 });
    });

    it('analyses again once a tenth of the table has changed, and not before', async () => {
      await writeAndPublish(database.db, ["update upkeep_probe set status = 'listed' where id <= 40"]);
      // 40 of 500 is under 50 + 10%.
      expect(await upkeepOf(database, 'upkeep_probe')).toEqual([]);
      await writeAndPublish(database.db, ["update upkeep_probe set status = 'listed' where id between 41 and 140"]);
      expect(await upkeepOf(database, 'upkeep_probe')).toEqual([{ table: 'upkeep_probe', action: 'analyze', reason: 'changed' }]);
    });

    it('vacuums every table whose oldest unfrozen transaction passed the freeze age, system catalogs too, so the database’s can advance', async () => {
      // Created in one transaction, filled in a later one: a vacuum that visits it can move its
      // oldest unfrozen id up to the rows' own.
      await writeAndPublish(database.db, ['create table upkeep_old (id int) with (autovacuum_enabled = false)']);
      await writeAndPublish(database.db, ['insert into upkeep_old select generate_series(1, 100)']);
      for (let n = 0; n < 60; n++) await sql`select txid_current()`.execute(database.db);
      // The ids themselves, not their ages: the run's own transactions age everything as it goes.
      const oldest = async () =>
        (
          await sql<{ age: number; table: number; database: number }>`
            select age(c.relfrozenxid) as age, c.relfrozenxid::text::bigint as table,
              (select datfrozenxid::text::bigint from pg_database where datname = current_database()) as database
            from pg_class c where c.oid = 'upkeep_old'::regclass`.execute(database.db)
        ).rows[0];
      const before = await oldest();
      expect(before?.age).toBeGreaterThan(50);
      // The real age is 200 million transactions; 50 stands for it here.
      const run = await keepTablesUp(database, { freezeMaxAge: 50 });
      expect(run.failed).toEqual([]);
      expect(run.done).toContainEqual({ table: 'upkeep_old', action: 'vacuum', reason: 'wraparound' });
      expect(run.done).toContainEqual({ table: 'pg_catalog.pg_class', action: 'vacuum', reason: 'wraparound' });
      const after = await oldest();
      expect(after?.table).toBeGreaterThan(before?.table ?? Infinity);
      expect(after?.database).toBeGreaterThan(before?.database ?? Infinity);
      // With the real age, nothing here is due.
      expect((await keepTablesUp(database)).done.filter((done) => done.reason === 'wraparound')).toEqual([]);
    });

    it('vacuums a table whose oldest multixact passed the multixact freeze age', async () => {
      await writeAndPublish(database.db, [
        'create table upkeep_locked (id int primary key, v int) with (autovacuum_enabled = false)',
        'insert into upkeep_locked values (1, 1)',
      ]);
      // A row locked by a transaction and then updated by its subtransaction: two lockers, one multixact.
      await database.db.connection().execute(async (connection) => {
        for (const statement of [
          'begin',
          'select * from upkeep_locked where id = 1 for share',
          'savepoint inner_write',
          'update upkeep_locked set v = 2 where id = 1',
          'commit',
        ])
          await sql.raw(statement).execute(connection);
      });
      const oldestMultixact = async () =>
        Number(
          (
            await sql<{ id: string }>`select relminmxid::text as id from pg_class where oid = 'upkeep_locked'::regclass`.execute(
              database.db,
            )
          ).rows[0]?.id,
        );
      const before = await oldestMultixact();
      // The real age is 400 million multixacts; 0 stands for it here.
      const run = await keepTablesUp(database, { multixactFreezeMaxAge: 0 });
      expect(run.failed).toEqual([]);
      expect(run.done).toContainEqual({ table: 'upkeep_locked', action: 'vacuum', reason: 'wraparound' });
      expect(await oldestMultixact()).toBeGreaterThan(before);
      expect((await keepTablesUp(database)).done.filter((done) => done.table === 'upkeep_locked')).toEqual([]);
    });
  } else {
    it('leaves a table with statistics to the server’s autovacuum, whatever changed (its operator tunes it)', async () => {
      await writeAndPublish(database.db, ["update upkeep_probe set status = 'expired' where id <= 300"]);
      expect(await upkeepOf(database, 'upkeep_probe')).toEqual([]);
    });
  }
});

/**
 * An embedded data directory of its own: `before` on its first opening, a clean stop (PGlite then
 * forgets its table counters), `after` on the next opening; both closed and the files removed after.
 */
async function acrossARestart(
  before: (first: TestDatabase) => Promise<void>,
  after: (database: DatabaseHandle) => Promise<void>,
) {
  const first = await createTestDatabase();
  let firstOpen = true;
  let database: DatabaseHandle | undefined;
  try {
    await before(first);
    await first.close({ keepFiles: true });
    firstOpen = false;
    database = await openDatabase({ databaseUrl: undefined, dataDir: first.dataDir, poolSize: 1 });
    await after(database);
  } finally {
    if (firstOpen) await first.close({ keepFiles: true });
    await database?.close();
    fs.rmSync(first.dataDir, { recursive: true, force: true });
  }
}

describe.skipIf(engine !== 'embedded')('table upkeep across a restart of the embedded engine', () => {
  it('analyses a table at its first vacuum for inserts after a start, though it grew by less than a tenth', {
    timeout: 60_000,
  }, async () => {
    const upkeep = async (db: Pick<DatabaseHandle, 'db' | 'engine' | 'pool' | 'refusal'>) => {
      const run = await keepTablesUp(db, { insertVacuumCap: 250 });
      expect(run.failed).toEqual([]);
      return run.done.filter((done) => done.table === 'upkeep_restarted');
    };
    await acrossARestart(
      async (first) => {
        await writeAndPublish(first.db, [
          'create table upkeep_restarted (id int primary key)',
          'insert into upkeep_restarted select g from generate_series(1, 10000) g',
        ]);
        expect(await upkeep(first)).toEqual([{ table: 'upkeep_restarted', action: 'vacuum analyze', reason: 'inserted' }]);
      },
      async (database) => {
        // 300 rows: 3% more, under the "grown" rule's tenth, but past the cap.
        await writeAndPublish(database.db, ['insert into upkeep_restarted select g from generate_series(10001, 10300) g']);
        expect(await upkeep(database)).toEqual([{ table: 'upkeep_restarted', action: 'vacuum analyze', reason: 'inserted' }]);
        await writeAndPublish(database.db, ['insert into upkeep_restarted select g from generate_series(10301, 10600) g']);
        expect(await upkeep(database)).toEqual([{ table: 'upkeep_restarted', action: 'vacuum', reason: 'inserted' }]);
      },
    );
  });

  it('vacuums and analyses a table grown by a tenth since, though PGlite lost its counters when it stopped', {
    timeout: 60_000,
  }, async () => {
    await acrossARestart(
      async (first) => {
        await writeAndPublish(first.db, [
          'create table upkeep_growing (id int primary key, note text)',
          "insert into upkeep_growing select g, repeat('x', 100) from generate_series(1, 2000) g",
        ]);
        expect(await upkeepOf(first, 'upkeep_growing')).toEqual([
          { table: 'upkeep_growing', action: 'vacuum analyze', reason: 'inserted' },
        ]);
        // A quarter more rows, past the analyse threshold (50 + 10%), not yet analysed when the service stops.
        await writeAndPublish(first.db, [
          "insert into upkeep_growing select g, repeat('x', 100) from generate_series(2001, 2500) g",
        ]);
      },
      async (database) => {
        const { rows } = await sql<{ inserted: number; changed: number }>`
          select n_ins_since_vacuum::int as inserted, n_mod_since_analyze::int as changed
          from pg_stat_user_tables where relname = 'upkeep_growing'`.execute(database.db);
        // The premise: a clean stop and start of PGlite forgets the counters the other rules go by.
        expect(rows[0]).toEqual({ inserted: 0, changed: 0 });
        const run = await keepTablesUp(database);
        expect(run.failed).toEqual([]);
        expect(run.done.filter((done) => done.table === 'upkeep_growing')).toEqual([
          { table: 'upkeep_growing', action: 'vacuum analyze', reason: 'grown' },
        ]);
        const { rows: counted } = await sql<{ rows: number }>`
          select reltuples::int as rows from pg_class where oid = 'upkeep_growing'::regclass`.execute(database.db);
        expect(counted[0]?.rows).toBe(2500);
        expect((await keepTablesUp(database)).done.filter((done) => done.table === 'upkeep_growing')).toEqual([]);
        // From its first upkeep after the start, the counters tell: 350 more rows are a change (past 50 + 10%), not growth.
        await writeAndPublish(database.db, [
          "insert into upkeep_growing select g, repeat('x', 100) from generate_series(2501, 2850) g",
        ]);
        expect((await keepTablesUp(database)).done.filter((done) => done.table === 'upkeep_growing')).toEqual([
          { table: 'upkeep_growing', action: 'analyze', reason: 'changed' },
        ]);
      },
    );
  });
});

describe('the start-up advice on a server whose autovacuum is off', () => {
  it('says nothing while autovacuum runs and sees the counters', () => {
    expect(autovacuumAdvice({ autovacuum: 'on', trackCounts: 'on' })).toBeUndefined();
  });

  it('names the setting that is off and where to read more', () => {
    expect(autovacuumAdvice({ autovacuum: 'off', trackCounts: 'on' })).toBe(
      "PostgreSQL's autovacuum is off, so nothing analyses the registry's tables as they grow: searches are " +
        'planned on statistics from when the tables were small, and slow down. Turn it on, or run analyze ' +
        'after every large change (README, "Planner statistics").',
    );
    expect(autovacuumAdvice({ autovacuum: 'on', trackCounts: 'off' })).toMatch(/^PostgreSQL's track_counts is off/);
  });

  it(`reads the settings of the database it is given (${engine} engine), and never fails a start`, async () => {
    const database = await createTestDatabase();
    try {
      const { rows } = await sql<{ on: boolean }>`
        select current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on' as on`.execute(database.db);
      const advice = await autovacuumAdviceOf(database.db);
      if (rows[0]?.on) expect(advice).toBeUndefined();
      else expect(advice).toMatch(/is off, so nothing analyses/);
    } finally {
      await database.close();
    }
    // Closed: the settings cannot be read.
    expect(await autovacuumAdviceOf(database.db)).toBeUndefined();
  });
});
