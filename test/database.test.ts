import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { DataDirLockedError } from '../src/db/data-dir-lock.js';
import { openDatabase } from '../src/db/database.js';
import { engine } from './helpers/test-database.js';

const dirs: string[] = [];
/** A data directory holding a copy of the migrated template, so no test waits for initdb. */
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-db-'));
  dirs.push(dir);
  if (engine === 'embedded') fs.cpSync(inject('embeddedTemplateDir'), dir, { recursive: true });
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const open = (dataDir: string) => openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });

/** Runs the fixture that commits a row and waits; kills it with SIGKILL as soon as it reports. */
function commitThenKill(dataDir: string, note: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures/commit-and-wait.mjs')], {
      env: { ...process.env, DATA_DIR: dataDir, NOTE: note },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('committed')) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`fixture exited: ${stderr}`))));
  });
}

describe.runIf(engine === 'embedded')('the embedded database', () => {
  it('keeps committed data across a clean stop and a restart', async () => {
    const dir = tempDir();
    const first = await open(dir);
    await sql`create table kept (note text)`.execute(first.db);
    await sql`insert into kept values ('survives a restart')`.execute(first.db);
    await first.close();

    const second = await open(dir);
    const { rows } = await sql<{ note: string }>`select note from kept`.execute(second.db);
    expect(rows).toEqual([{ note: 'survives a restart' }]);
    await second.close();
  });

  it('keeps a write committed just before the process is killed with SIGKILL', async () => {
    const dir = tempDir();
    await commitThenKill(dir, 'written before kill -9');
    await commitThenKill(dir, 'and a second one');
    // The kernel freed the killed process's lock; the next start takes the directory at once.
    const reopened = await open(dir);
    const { rows } = await sql<{ note: string }>`select note from crash_probe order by id`.execute(reopened.db);
    expect(rows.map((r) => r.note)).toEqual(['written before kill -9', 'and a second one']);
    await reopened.close();
  }, 90_000);

  it('runs with fsync on and synchronous commit', async () => {
    const db = await open(tempDir());
    const setting = async (name: string) =>
      (await sql.raw<{ v: string }>(`select current_setting('${name}') as v`).execute(db.db)).rows[0]?.v;
    expect(await setting('fsync')).toBe('on');
    expect(await setting('synchronous_commit')).toBe('on');
    await db.close();
  });

  it('refuses a second opener of the same data directory with a clear message', async () => {
    const dir = tempDir();
    const holder = await open(dir);
    await expect(open(dir)).rejects.toThrow(DataDirLockedError);
    await expect(open(dir)).rejects.toThrow(/in use by another Redflag process/);
    await holder.close();
    const after = await open(dir);
    await after.close();
  });

  it('is not locked out by a lock file naming a pid that is alive but not Redflag (pid reuse, pid 1 in a container)', async () => {
    const dir = tempDir();
    const unrelated = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      for (const pid of [process.pid, unrelated.pid]) {
        fs.writeFileSync(path.join(dir, 'redflag.lock'), JSON.stringify({ pid, startedAt: new Date().toISOString() }));
        const handle = await open(dir);
        await handle.close();
      }
    } finally {
      unrelated.kill('SIGKILL');
    }
  }, 90_000);

  it('names a live holder in another process, and is free the moment that process is killed with SIGKILL', async () => {
    const dir = tempDir();
    const holder = spawn(process.execPath, [path.join(__dirname, 'fixtures/commit-and-wait.mjs')], {
      env: { ...process.env, DATA_DIR: dir, NOTE: 'held' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => holder.stdout.on('data', (chunk) => String(chunk).includes('committed') && resolve()));
    await expect(open(dir)).rejects.toThrow(`in use by another Redflag process (pid ${holder.pid})`);
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const reopened = await open(dir);
    await reopened.close();
  }, 90_000);

  it('lets the event loop turn between queued queries, so sockets are read and accepted under load', async () => {
    const handle = await open(tempDir());
    let finished = 0;
    const queries = Array.from({ length: 50 }, () =>
      sql`select 1`.execute(handle.db).then(() => {
        finished += 1;
      }),
    );
    const finishedWhenTheLoopTurned = await new Promise<number>((resolve) => setImmediate(() => resolve(finished)));
    await Promise.all(queries);
    await handle.close();
    // Chained as microtasks alone, all 50 would finish before the loop's next turn.
    expect(finishedWhenTheLoopTurned).toBeLessThan(50);
  });
});

describe.runIf(engine === 'server')('the PostgreSQL server engine', () => {
  it('gives a clear message when the server cannot be reached', async () => {
    await expect(
      openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir: tempDir(), poolSize: 1 }),
    ).rejects.toThrow(/Cannot reach the PostgreSQL server \(127\.0\.0\.1:1\/none\)/);
  });
});
