import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { freeBytes } from '../src/db/disk-reserve.js';
import { embeddedPgdata } from '../src/db/embedded.js';
import { removeCrashTempFiles } from '../src/db/embedded-temp-files.js';
import { engine } from './helpers/test-database.js';
import { canMountTmpfs, mountTmpfs, unmount } from './helpers/tmpfs.js';

const MB = 1024 * 1024;
const root = path.resolve(import.meta.dirname, '..');
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A copy of the suite's embedded template in `parent`, removed after the test. */
function dataDirIn(parent: string): string {
  const dataDir = fs.mkdtempSync(path.join(parent, 'redflag-temp-files-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
  return dataDir;
}

async function openKept(dataDir: string, diskReserveBytes?: number): Promise<DatabaseHandle> {
  const database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, diskReserveBytes });
  cleanups.push(() => database.close());
  return database;
}

/** The files a sort's spill (`base/pgsql_tmp`) and a temporary table (`base/<db>/t…`) keep. */
function tempFiles(dataDir: string): string[] {
  const base = path.join(embeddedPgdata(dataDir), 'base');
  const spilled = fs.existsSync(path.join(base, 'pgsql_tmp')) ? fs.readdirSync(path.join(base, 'pgsql_tmp')) : [];
  const relations = fs
    .readdirSync(base)
    .filter((name) => /^\d+$/.test(name))
    .flatMap((db) => fs.readdirSync(path.join(base, db)).filter((name) => /^t\d+_\d+/.test(name)));
  return [...spilled, ...relations];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a process that makes a temporary table, then sorts more than work_mem, and kills it with
 * SIGKILL once both kinds of file are on disk and `enough` says so.
 */
async function killMidSort(dataDir: string, enough: () => boolean = () => true): Promise<void> {
  // dist/ is what `npm test` built.
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { openDatabase } from './dist/db/database.js';
       const database = await openDatabase({ databaseUrl: undefined, dataDir: ${JSON.stringify(dataDir)}, poolSize: 1 });
       await database.pool.query('create temporary table scratch as select g from generate_series(1, 100000) g');
       await database.pool.query("set work_mem = '64kB'");
       await database.pool.query('select count(*) from (select g from generate_series(1, 30000000) g order by md5(g::text)) sorted');`,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let ended = false;
  const exited = new Promise((resolve) =>
    child.on('exit', () => {
      ended = true;
      resolve(undefined);
    }),
  );
  const kill = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  // Also when the test times out first: a live child would keep its files, and a tmpfs, busy.
  cleanups.push(kill);
  try {
    // Every 20 ms: on a small disk the spill must be caught before it fills the disk.
    for (let waited = 0; waited < 90_000 && !ended; waited += 20) {
      const files = tempFiles(dataDir);
      if (files.some((name) => name.startsWith('pgsql_tmp')) && files.some((name) => name.startsWith('t')) && enough()) return;
      await sleep(20);
    }
    throw new Error(`the sort never spilled far enough before ${ended ? 'its process ended' : '90 s'}: ${stderr}`);
  } finally {
    await kill();
  }
}

describe.skipIf(engine !== 'embedded')('the temporary files a crash of the embedded engine leaves', () => {
  it('are removed at the next open, as PostgreSQL’s postmaster does (PGlite has none)', async () => {
    const dataDir = dataDirIn(os.tmpdir());
    await killMidSort(dataDir);
    expect(tempFiles(dataDir).length).toBeGreaterThanOrEqual(2);

    const database = await openKept(dataDir);
    expect(tempFiles(dataDir)).toEqual([]);
    const { rows } = await database.pool.query('select count(*)::int as reports from reports');
    expect(rows).toEqual([{ reports: expect.any(Number) }]);
  }, 150_000);
});

describe('the temporary files of PostgreSQL', () => {
  it('are told from every file that must stay, and one that cannot be removed is passed over', () => {
    const pgdata = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-temp-names-'));
    cleanups.push(() => fs.rmSync(pgdata, { recursive: true, force: true }));
    const write = (file: string, bytes = 10) => {
      fs.mkdirSync(path.dirname(path.join(pgdata, file)), { recursive: true });
      fs.writeFileSync(path.join(pgdata, file), Buffer.alloc(bytes));
    };
    const kept = [
      'PG_VERSION',
      'base/5/16384',
      'base/5/16384_fsm',
      'base/5/16384_init',
      'base/5/16384.1',
      'base/5/t3_16384_main',
      'base/5/pg_filenode.map',
      'base/pgsql_tmp/notes.txt',
      'global/t3_16384',
      'outside/pgsql_tmp42.9',
    ];
    const removed = [
      'base/pgsql_tmp/pgsql_tmp42.0',
      'base/pgsql_tmp/pgsql_tmp42.3.fileset/o12of16.p0.0',
      'base/5/t3_16385',
      'base/5/t3_16385_fsm',
      'base/5/t3_16385_vm',
      'base/5/t3_16385_init',
      'base/5/t3_16385.2',
      'base/1/t0_20000',
    ];
    for (const file of [...kept, ...removed]) write(file);
    // A link among the spill files is removed itself, never what it points to.
    const target = path.join(pgdata, 'outside/pgsql_tmp42.9');
    fs.symlinkSync(target, path.join(pgdata, 'base/pgsql_tmp/pgsql_tmp42.1'));
    // A directory named like a temporary relation cannot be unlinked (root included): counted, left.
    write('base/5/t4_16386/inside');

    expect(removeCrashTempFiles(pgdata)).toEqual({
      files: removed.length + 1,
      bytes: removed.length * 10 + Buffer.byteLength(target),
      failed: 1,
      firstFailure: expect.stringContaining('t4_16386'),
    });
    for (const file of [...kept, 'base/5/t4_16386/inside']) expect(fs.existsSync(path.join(pgdata, file)), file).toBe(true);
    for (const file of [...removed, 'base/pgsql_tmp/pgsql_tmp42.3.fileset', 'base/pgsql_tmp/pgsql_tmp42.1'])
      expect(fs.existsSync(path.join(pgdata, file)), file).toBe(false);
  });
});

describe.skipIf(!canMountTmpfs('temporary files on a full disk'))('the temporary files a crash left on a full disk', () => {
  it('are removed before the disk reserve is read, so the next start is not refused for their space', async () => {
    const mountPoint = mountTmpfs(160);
    if (!mountPoint) throw new Error('could not mount a tmpfs');
    cleanups.push(() => unmount(mountPoint));
    const dataDir = dataDirIn(mountPoint);
    // The spill takes the disk under a 64 MB reserve, as one does before PGlite fills a disk, hangs
    // and is killed (decision 0110); stopped well before the disk is full, when the sort would fail
    // and remove its files itself.
    await killMidSort(dataDir, () => freeBytes(mountPoint) < 56 * MB);
    expect(freeBytes(mountPoint)).toBeLessThan(64 * MB);

    await openKept(dataDir, 64 * MB);
    expect(tempFiles(dataDir)).toEqual([]);
    expect(freeBytes(mountPoint)).toBeGreaterThan(64 * MB);
  }, 150_000);
});
