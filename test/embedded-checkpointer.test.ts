import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import type { CheckpointerOptions } from '../src/db/embedded-checkpointer.js';
import { engine } from './helpers/test-database.js';

const MB = 1024 * 1024;
const opened: Array<{ handle?: DatabaseHandle; dataDir: string }> = [];

async function openEmbedded(checkpoint: CheckpointerOptions): Promise<DatabaseHandle> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-checkpoint-'));
  const entry: { handle?: DatabaseHandle; dataDir: string } = { dataDir };
  opened.push(entry);
  fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
  entry.handle = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, checkpoint });
  return entry.handle;
}

/** The last checkpoint's redo point, and how much WAL a crash now would replay from it. */
async function walState(database: DatabaseHandle): Promise<{ redo: string; since: number }> {
  const { rows } = await sql<{ redo: string; since: number }>`
    select redo_lsn::text as redo, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 as since
    from pg_control_checkpoint()`.execute(database.db);
  return rows[0] as { redo: string; since: number };
}

/** About `megabytes` of WAL, as a burst of audited searches or a screening job writes it. */
async function writeWal(database: DatabaseHandle, megabytes: number) {
  await sql`create table if not exists wal_filler (id bigserial primary key, body text)`.execute(database.db);
  await sql`insert into wal_filler (body) select repeat(md5(g::text), 8) from generate_series(1, ${megabytes * 3_000}) g`.execute(
    database.db,
  );
}

const root = path.resolve(import.meta.dirname, '..');

/** Runs `code` (an ES module) in a node process of its own; resolves with how it ended and in how many ms. */
function runNode(code: string, killAfterMs: number): Promise<{ code: number | null; signal: string | null; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: root, stdio: 'ignore' });
    const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, ms: performance.now() - started });
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  for (const { handle, dataDir } of opened.splice(0)) {
    try {
      await handle?.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
});

describe.skipIf(engine !== 'embedded')('the embedded engine’s checkpoints (PGlite has no checkpointer)', () => {
  it('checkpoints once the WAL since the last checkpoint passes the bound, so a crash replays little', async () => {
    const database = await openEmbedded({ walBytes: 2 * MB, checkEveryMs: 50 });
    const before = await walState(database);
    await writeWal(database, 8);
    // (PostgreSQL in single-user mode would not checkpoint by itself: the next test shows the WAL kept.)
    let state = await walState(database);
    for (let waited = 0; state.redo === before.redo && waited < 5_000; waited += 50) {
      await sleep(50);
      state = await walState(database);
    }
    expect(state.redo).not.toBe(before.redo);
    expect(state.since).toBeLessThan(2 * MB);
    const stats = database.checkpoints?.();
    expect(stats?.count).toBeGreaterThanOrEqual(1);
    expect(stats?.seconds).toBeGreaterThan(0);
  });

  it('leaves the WAL alone below the bound', async () => {
    const database = await openEmbedded({ walBytes: 64 * MB, checkEveryMs: 20 });
    const before = await walState(database);
    await writeWal(database, 8);
    await sleep(300);
    const after = await walState(database);
    expect(after.redo).toBe(before.redo);
    expect(after.since).toBeGreaterThan(4 * MB);
    expect(database.checkpoints?.()).toEqual({ count: 0, seconds: 0 });
  });

  it('lets a process that never closes its database end, as it did before the checkpointer looked each second', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-checkpoint-'));
    opened.push({ dataDir });
    fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
    // dist/ is what `npm test` built. PGlite itself holds the process about 10 s after its last query.
    const ended = await runNode(
      `import { openDatabase } from './dist/db/database.js';
       const database = await openDatabase({ databaseUrl: undefined, dataDir: ${JSON.stringify(dataDir)}, poolSize: 1 });
       await database.pool.query('select 1');`,
      40_000,
    );
    expect(ended).toMatchObject({ code: 0, signal: null });
  }, 60_000);
});
