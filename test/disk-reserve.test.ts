import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadCrypto } from '../src/crypto/load-crypto.js';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { DiskReserveError, freeBytes } from '../src/db/disk-reserve.js';
import { keepTablesUp } from '../src/db/table-upkeep.js';
import { isDatabaseUnavailable } from '../src/db/unavailable.js';
import { testConfig } from './helpers/test-app.js';
import { engine } from './helpers/test-database.js';
import { canMountTmpfs, mountTmpfs, unmount } from './helpers/tmpfs.js';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 50 ms for up to 5 s until it returns true. */
async function within5s(probe: () => Promise<boolean>): Promise<boolean> {
  for (let waited = 0; waited < 5_000; waited += 50) {
    if (await probe()) return true;
    await sleep(50);
  }
  return false;
}

describe.skipIf(engine !== 'embedded')('the embedded engine’s disk reserve', () => {
  it('refuses to open the database on a disk already under the reserve, and lets go of the directory; the upkeep asks too', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-reserve-'));
    try {
      const opening = openDatabase({
        databaseUrl: undefined,
        dataDir,
        poolSize: 1,
        diskReserveBytes: freeBytes(dataDir) + 1024 ** 4,
      });
      await expect(opening).rejects.toBeInstanceOf(DiskReserveError);
      await expect(opening).rejects.toThrow(
        /MB free, under the \d+ MB kept in reserve \(REDFLAG_DISK_RESERVE_MB\): free some space first/,
      );
      const database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });
      try {
        // The upkeep takes the pool's connection directly, past the serving pool's check: it asks
        // before each table (the reserve stood in for here, the serving pool left unguarded).
        await sql`create table never_analysed (n int)`.execute(database.db);
        await sql`insert into never_analysed select generate_series(1, 100)`.execute(database.db);
        const refusal = () => new DiskReserveError('under the reserve');
        await expect(keepTablesUp({ ...database, refusal })).rejects.toBeInstanceOf(DiskReserveError);
        const run = await keepTablesUp(database);
        expect(run.done.map((done) => done.table)).toContain('never_analysed');
      } finally {
        await database.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * The real thing on a small disk of its own (a tmpfs: root only). Without the reserve PGlite hangs
 * Node's main thread when that disk fills (decision 0110).
 */
describe.skipIf(!canMountTmpfs('disk reserve on a full disk'))('the embedded engine on a disk that fills up', () => {
  let mountPoint = '';
  let dataDir = '';
  let filler = '';
  let database: DatabaseHandle;
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    const mounted = mountTmpfs();
    if (!mounted) throw new Error('could not mount a tmpfs');
    mountPoint = mounted;
    dataDir = path.join(mountPoint, 'data');
    filler = path.join(mountPoint, 'filler');
    fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
    database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, diskReserveBytes: 24 * MB });
    const config = testConfig(dataDir);
    const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    app = await buildApp({ config, database, crypto, logStream: quiet });
    await app.ready();
  });
  afterAll(async () => {
    try {
      fs.rmSync(filler, { force: true });
      await app?.close();
      await database?.close();
    } finally {
      if (mountPoint) unmount(mountPoint);
    }
  });

  it('answers 503 with Retry-After while the disk is under the reserve, and serves again once space is freed', async () => {
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const { apiKey } = await app.admin.companies.create({ businessName: 'Reserve MFB' });
    const searchOnce = () =>
      app.inject({
        method: 'POST',
        url: '/api/v1/external/reports/search',
        headers: { 'x-api-key': apiKey },
        payload: { identifier: 'phone', value: '08031234567' },
      });
    expect((await searchOnce()).statusCode).toBe(200);
    // Leaves 8 MB free: under the 24 MB reserve.
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes(mountPoint) - 8 * MB)));

    const refused = await within5s(async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 503);
    expect(refused).toBe(true);
    const search = await searchOnce();
    expect(search.statusCode).toBe(503);
    expect(search.headers['retry-after']).toBeDefined();
    expect(search.json()).toMatchObject({
      success: false,
      message: 'The service is short of disk space; retry shortly',
      data: { code: 'UNAVAILABLE' },
    });
    const error = await sql`select 1`.execute(database.db).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiskReserveError);
    expect(isDatabaseUnavailable(error)).toBe(true);
    // The upkeep takes the pool's connection directly: it asks too.
    await expect(keepTablesUp(database)).rejects.toBeInstanceOf(DiskReserveError);

    fs.rmSync(filler);
    const served = await within5s(async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200);
    expect(served).toBe(true);
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    expect((await searchOnce()).statusCode).toBe(200);
  });
});
