import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { engine } from './helpers/test-database.js';

const root = path.resolve(import.meta.dirname, '..');
const opened: Array<{ handle?: DatabaseHandle; dataDir: string }> = [];

afterEach(async () => {
  for (const { handle, dataDir } of opened.splice(0)) {
    try {
      await handle?.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
});

/** The files a sort's spill (`base/pgsql_tmp`) and a temporary table (`base/<db>/t…`) keep. */
function tempFiles(dataDir: string): string[] {
  const base = path.join(dataDir, 'pgdata', 'base');
  const spilled = fs.existsSync(path.join(base, 'pgsql_tmp')) ? fs.readdirSync(path.join(base, 'pgsql_tmp')) : [];
  const relations = fs
    .readdirSync(base)
    .filter((name) => /^\d+$/.test(name))
    .flatMap((db) => fs.readdirSync(path.join(base, db)).filter((name) => /^t\d+_\d+/.test(name)));
  return [...spilled, ...relations];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A process that holds a temporary table and is sorting more than work_mem when it is killed:
 * resolves once both kinds of file are on disk and the process is dead.
 */
async function killMidSort(dataDir: string): Promise<void> {
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
    { cwd: root, stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    for (let waited = 0; waited < 60_000; waited += 100) {
      const files = tempFiles(dataDir);
      if (files.some((name) => name.startsWith('pgsql_tmp')) && files.some((name) => name.startsWith('t'))) return;
      await sleep(100);
    }
    throw new Error('the sort never spilled to disk');
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

describe.skipIf(engine !== 'embedded')('the temporary files a crash of the embedded engine leaves', () => {
  it('are removed at the next open, as PostgreSQL’s postmaster does (PGlite has none)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-temp-files-'));
    const entry: { handle?: DatabaseHandle; dataDir: string } = { dataDir };
    opened.push(entry);
    fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
    await killMidSort(dataDir);
    expect(tempFiles(dataDir).length).toBeGreaterThanOrEqual(2);

    entry.handle = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });
    expect(tempFiles(dataDir)).toEqual([]);
    const { rows } = await entry.handle.pool.query('select count(*)::int as reports from reports');
    expect(rows).toEqual([{ reports: expect.any(Number) }]);
  }, 90_000);
});
