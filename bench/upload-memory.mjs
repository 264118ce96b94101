// Memory of the server while it receives ten 5 MiB uploads at once (issue 6). The server runs as
// its own process (dist/server.js); this script sends the files over HTTP on the loopback interface
// and reads the server's memory before, during and after: RSS and its peak (VmHWM, reset before each
// round through /proc/<pid>/clear_refs) from /proc, and from /metrics the V8 heap and the memory
// outside it (`external`: Buffers, where file bytes live).
//   npm run build && node bench/upload-memory.mjs                      (embedded engine, temp data dir)
//   DATABASE_URL=postgres://... node bench/upload-memory.mjs           (PostgreSQL server, own schema)
// BENCH_FILES (10) and BENCH_FILE_BYTES (5242880) change the load; BENCH_ROUNDS (2) repeats it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const FILES = Number(process.env.BENCH_FILES ?? 10);
const FILE_BYTES = Number(process.env.BENCH_FILE_BYTES ?? 5 * 1024 * 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-upload-bench-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  REDFLAG_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  ...(process.env.DATABASE_URL
    ? {
        REDFLAG_DATABASE_SCHEMA: `bench_upload_${process.pid}`,
        REDFLAG_MASTER_KEY: process.env.REDFLAG_MASTER_KEY ?? randomBytes(32).toString('base64'),
        // One process, so the memory read from /proc is that of the process receiving the files.
        REDFLAG_WORKERS: '1',
      }
    : {}),
};

const server = spawn(process.execPath, [path.join(root, 'dist/server.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
try {
  await waitFor(`${base}/readyz`);
  const apiKey = await companyKey();
  const files = Array.from({ length: FILES }, () => pdfOf(FILE_BYTES));
  console.log(
    `engine: ${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded (PGlite)'}; ${FILES} files of ${FILE_BYTES} bytes at once; server pid ${server.pid}`,
  );
  // One small upload first, so lazily loaded code (multipart, the upload statements) is in place.
  await upload(apiKey, pdfOf(1024));
  await sleep(1000);
  for (let round = 1; round <= ROUNDS; round++) {
    const before = await sample();
    const hwmReset = resetPeak();
    console.log(
      `round ${round} before: rss ${mib(before.rss)}, heapUsed ${mib(before.heapUsed)}, external ${mib(before.external)}` +
        (hwmReset ? '' : ' (VmHWM could not be reset: peak rss is the sampled one)'),
    );
    const peak = { rss: 0, heapUsed: 0, external: 0 };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const s = await sample();
        for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], s[k]);
        await sleep(20);
      }
    })();
    const started = performance.now();
    const results = await Promise.all(files.map((bytes) => upload(apiKey, bytes)));
    const elapsed = performance.now() - started;
    sampling = false;
    await sampler;
    const statuses = results.map((r) => r.status);
    const during = await sample();
    const peakRss = hwmReset ? during.hwm : peak.rss;
    await sleep(1500);
    const after = await sample();
    console.log(
      `round ${round}: ${statuses.filter((s) => s === 201).length}/${statuses.length} answered 201 in ${Math.round(elapsed)} ms (${mib(FILES * FILE_BYTES)}); ` +
        `peak rss ${mib(peakRss)} (${signed(peakRss - before.rss)}), peak heapUsed ${mib(peak.heapUsed)} (${signed(peak.heapUsed - before.heapUsed)}), ` +
        `peak external ${mib(peak.external)} (${signed(peak.external - before.external)}); 1.5 s later rss ${mib(after.rss)}, external ${mib(after.external)}`,
    );
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (env.REDFLAG_DATABASE_SCHEMA) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists ${client.escapeIdentifier(env.REDFLAG_DATABASE_SCHEMA)} cascade`);
    await client.end();
  }
}

/**
 * A well-formed PDF of exactly `size` bytes: its random filler sits in a stream, where the upload
 * checks do not look for active content (in the object syntax random bytes could spell `/JS`).
 */
function pdfOf(size) {
  const head = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Length 0 >>\nstream\n', 'latin1');
  const tail = Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
  return Buffer.concat([head, randomBytes(size - head.length - tail.length), tail]);
}

async function upload(apiKey, bytes) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'evidence.pdf');
  const res = await fetch(`${base}/api/v1/external/uploads`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`upload answered ${res.status}`);
  return res;
}

/** RSS and its high-water mark from /proc (no request needed), the V8 heap and external memory from /metrics. */
async function sample() {
  const status = fs.readFileSync(`/proc/${server.pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const metric = (name) => Number(new RegExp(`^${name} (\\d+(?:\\.\\d+)?)`, 'm').exec(metrics)?.[1] ?? 0);
  return {
    rss: kib('VmRSS'),
    hwm: kib('VmHWM'),
    heapUsed: metric('nodejs_heap_size_used_bytes'),
    external: metric('nodejs_external_memory_bytes'),
  };
}

/** Linux resets a process's VmHWM to its current RSS when 5 is written to clear_refs. */
function resetPeak() {
  try {
    fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function companyKey() {
  const cli = spawn(process.execPath, [path.join(root, 'bin/redflag.js'), 'company', 'create', '--name', 'Bench MFB', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  cli.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => cli.once('exit', resolve));
  if (code !== 0) throw new Error('company create failed');
  return JSON.parse(out).apiKey;
}

async function waitFor(url) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`${url} did not answer`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function signed(bytes) {
  return `${bytes >= 0 ? '+' : ''}${mib(bytes)}`;
}

function mib(bytes) {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
