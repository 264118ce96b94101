// How long `crypto rotate-root` and `crypto reindex` take on the bench's seeded database:
//   node bench/key-rotation.js [--identifiers 1000000]
// Embedded engine only: each run works on a copy of the cached data directory, so the cache keeps
// its root key and index versions. Run `npm run build` first (the commands run from dist/).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { prepareDatabase } from './seeded-database.js';

const { values } = parseArgs({ options: { identifiers: { type: 'string', default: '1000000' } } });
const identifiers = Number(values.identifiers);
const root = path.join(import.meta.dirname, '..');
const cacheDir = path.join(root, '.bench-cache');
const database = await prepareDatabase({ identifiers, cacheDir, reseed: false, databaseUrl: undefined });

function redflag(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'bin/redflag.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...database.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`redflag ${args.join(' ')} exited ${code}: ${stdout}`));
      else resolve({ seconds: (performance.now() - started) / 1000, summary: JSON.parse(stdout) });
    });
  });
}

try {
  const keyFile = path.join(cacheDir, `new-root-${process.pid}.key`);
  fs.writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  // The first start of a cached database from before envelope encryption stores its keys; not timed.
  await redflag(['crypto', 'reindex', '--label', 'email', '--settle-seconds', '0', '--json']);
  const rotateRoot = await redflag(['crypto', 'rotate-root', '--new-key-file', keyFile, '--json']);
  fs.rmSync(keyFile);
  const reindex = await redflag(['crypto', 'reindex', '--settle-seconds', '0', '--json']);
  console.log(
    JSON.stringify(
      {
        identifiers,
        rotateRoot: { seconds: rotateRoot.seconds.toFixed(1), rewrapped: rotateRoot.summary.rewrapped },
        reindex: { seconds: reindex.seconds.toFixed(1), reindexed: reindex.summary.reindexed },
      },
      null,
      2,
    ),
  );
} finally {
  await database.cleanup();
}
