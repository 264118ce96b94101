// node bench/watchlist-import.js [--rows 1000000]
// Streams a generated CSV of --rows watchlist lines (never on disk) as one multipart upload to a
// service started as production does (embedded engine; DATABASE_URL=postgres://... for a server),
// and reports the time, rows a second and the service's peak resident memory (sampled from /proc).
// Port 4792 only. Run `npm run build` first.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values: flags } = parseArgs({ options: { rows: { type: 'string', default: '1000000' } } });
const rows = Number(flags.rows);
const PORT = 4792;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-bench-import-'));
const schema = process.env.DATABASE_URL ? `bench_import_${randomBytes(4).toString('hex')}` : undefined;
const env = {
  ...process.env,
  REDFLAG_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  REDFLAG_JOB_TICK_SECONDS: '0',
  REDFLAG_WORKERS: '1',
  ...(schema ? { REDFLAG_DATABASE_SCHEMA: schema, REDFLAG_MASTER_KEY: randomBytes(32).toString('base64') } : {}),
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(
  `watchlist import bench — ${rows.toLocaleString('en')} rows, ${schema ? 'server' : 'embedded'} engine, load average ${load()}`,
);

const child = spawn(process.execPath, [path.join(root, 'dist/server.js')], {
  env: { ...env, PORT: String(PORT), HOST: '127.0.0.1' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const rss = () => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
};
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`http://127.0.0.1:${PORT}/readyz`)).ok) break;
  } catch {
    // not yet
  }
  if (i > 1200) throw new Error('service did not start');
  await sleep(100);
}
const company = await new Promise((resolve, reject) => {
  const cli = spawn(
    process.execPath,
    [path.join(root, 'bin/redflag.js'), 'company', 'create', '--name', 'Import Bench', '--json'],
    {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  cli.stdout.on('data', (c) => {
    out += c;
  });
  cli.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))));
});
const headers = { 'x-api-key': company.apiKey };
const created = await (
  await fetch(`http://127.0.0.1:${PORT}/api/v1/external/watchlist/imports`, { method: 'POST', headers })
).json();
const importId = created.data.import.id;

const boundary = `----bench${randomBytes(6).toString('hex')}`;
const base = 1_000_000 + Math.floor(Math.random() * 1_000_000);
function* body() {
  yield `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="watch.csv"\r\nContent-Type: text/csv\r\n\r\nlabel,value,ref\n`;
  const chunk = [];
  for (let i = 0; i < rows; i++) {
    // Every 1,000th line is bad on purpose: the error report is part of the work.
    chunk.push(
      i % 1000 === 999 ? `phone,12,bad-${i}` : `phone,0807${String((base + i) % 10_000_000).padStart(7, '0')},cust-${i}`,
    );
    if (chunk.length === 5000) {
      yield `${chunk.join('\n')}\n`;
      chunk.length = 0;
    }
  }
  if (chunk.length) yield `${chunk.join('\n')}\n`;
  yield `\r\n--${boundary}--\r\n`;
}

let peak = rss();
const baseline = peak;
const sampler = setInterval(() => {
  peak = Math.max(peak, rss());
}, 250);
const started = performance.now();
const result = await new Promise((resolve, reject) => {
  const req = http.request(
    `http://127.0.0.1:${PORT}/api/v1/external/watchlist/imports/${importId}/file`,
    { method: 'POST', headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` } },
    (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
    },
  );
  req.on('error', reject);
  Readable.from(body()).pipe(req);
});
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
// What the service committed, whatever the answer: a refused or cut upload must not read as a rate.
const state = (await (await fetch(`http://127.0.0.1:${PORT}/api/v1/external/watchlist/imports/${importId}`, { headers })).json())
  .data.import;
const lines = state.processedLines - 1;
if (result.status !== 200) process.exitCode = 1;
console.log(
  `${result.status === 200 ? 'done' : 'FAILED'}: ${lines.toLocaleString('en')} of ${rows.toLocaleString('en')} lines read, ` +
    `${state.importedRows.toLocaleString('en')} imported, ${state.failedRows.toLocaleString('en')} reported as bad lines`,
);
console.log(
  `HTTP ${result.status}: ${JSON.stringify(result.body.data?.import ?? result.body)}\n` +
    `${lines.toLocaleString('en')} lines in ${seconds.toFixed(1)} s (${Math.round(lines / seconds).toLocaleString('en')} lines/s); ` +
    `service RSS ${mib(baseline)} before, peak ${mib(peak)} during (sampled every 250 ms); load average ${load()} at the end`,
);
child.kill('SIGTERM');
await new Promise((resolve) => child.on('exit', resolve));
fs.rmSync(dataDir, { recursive: true, force: true });
