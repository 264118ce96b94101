// node bench/webhooks.js [--rate 100] [--seconds 20] [--pending 10000] [--only latency,crash]
// Issue 14's figures on this machine, embedded engine (DATABASE_URL=postgres://... for a server):
//  latency: reports carrying a watched identifier filed at --rate a second for --seconds; the time
//           from each create (request sent / response received) to its signed watchlist.match at a
//           local receiver (every signature verified with the standardwebhooks package).
//  crash:   --pending events written while no worker runs, the service killed with SIGKILL, then a
//           second one killed mid-delivery, a third left to finish: every event must arrive (0 lost).
// Ports 4700-4799 only (the receiver and the services). Run `npm run build` first.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '20' },
    pending: { type: 'string', default: '10000' },
    only: { type: 'string', default: 'latency,crash' },
  },
});
const rate = Number(flags.rate);
const seconds = Number(flags.seconds);
const pending = Number(flags.pending);
const only = new Set(flags.only.split(','));
const RECEIVER_PORT = 4790;
const SERVICE_PORT = 4791;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-bench-webhooks-'));
const schema = process.env.DATABASE_URL ? `bench_webhooks_${randomBytes(4).toString('hex')}` : undefined;
const env = {
  ...process.env,
  REDFLAG_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  REDFLAG_WEBHOOK_ALLOW_PRIVATE: 'true',
  REDFLAG_RATE_LIMIT_PER_MINUTE: '1000000',
  REDFLAG_JOB_TICK_SECONDS: '0',
  REDFLAG_WORKERS: '1',
  ...(schema ? { REDFLAG_DATABASE_SCHEMA: schema, REDFLAG_MASTER_KEY: randomBytes(32).toString('base64') } : {}),
};

console.log(
  `webhooks bench — ${schema ? 'server' : 'embedded'} engine, Node ${process.version}, ${os.cpus().length} CPUs, ` +
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at start`,
);

// --- the receiver: verifies every signature, records arrival per report and unique message ids
const secrets = [];
const arrivals = new Map(); // report id -> first arrival (ms, performance.now())
const messageIds = new Set();
let received = 0;
let badSignatures = 0;
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    const at = performance.now();
    const ok = secrets.some((s) => {
      try {
        new Webhook(s).verify(body, req.headers);
        return true;
      } catch {
        return false;
      }
    });
    if (!ok) badSignatures++;
    received++;
    messageIds.add(req.headers['webhook-id']);
    const reportId = JSON.parse(body).data?.report?.id;
    if (reportId && !arrivals.has(reportId)) arrivals.set(reportId, at);
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve));

// --- the service, started as production does
function startService(extraEnv) {
  const child = spawn(process.execPath, [path.join(root, 'dist/server.js')], {
    env: { ...env, PORT: String(SERVICE_PORT), HOST: '127.0.0.1', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => {
    output = (output + c).slice(-3000);
  });
  child.stderr.on('data', (c) => {
    output = (output + c).slice(-3000);
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    child,
    exited,
    output: () => output,
    async ready() {
      for (let i = 0; i < 1200; i++) {
        try {
          if ((await fetch(`http://127.0.0.1:${SERVICE_PORT}/readyz`)).ok) return;
        } catch {
          // not yet
        }
        await sleep(100);
      }
      throw new Error(`service did not start:\n${output}`);
    },
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function cli(...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/redflag.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
  });
}

const base = `http://127.0.0.1:${SERVICE_PORT}`;
let resets = 0;
/** One request; a connection reset (a kept-alive socket closed under load) is retried with the same Idempotency-Key. */
async function api(apiKey, method, url, body) {
  const idempotencyKey = randomBytes(12).toString('hex');
  let res;
  for (let tries = 1; ; tries++) {
    try {
      res = await fetch(`${base}${url}`, {
        method,
        headers: {
          'x-api-key': apiKey,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(method === 'POST' && url === '/api/v1/external/reports' ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      break;
    } catch (err) {
      if (tries >= 5) throw err;
      resets++;
      await sleep(100 * tries);
    }
  }
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

let serial = 1_000_000 + Math.floor(Math.random() * 1_000_000);
const phone = () => `0803${String(++serial).padStart(7, '0')}`;
const REASON = 'Customer opened the account with a forged utility bill and moved funds out within hours.';

async function watch(apiKey, values) {
  for (let i = 0; i < values.length; i += 1000) {
    const items = values.slice(i, i + 1000).map((value) => ({ label: 'phone', value }));
    await api(apiKey, 'POST', '/api/v1/external/watchlist', { items });
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

let service = startService({ REDFLAG_WEBHOOK_POLL_MS: '200' });
await service.ready();
const watcher = await cli('company', 'create', '--name', 'Bench Watcher', '--json');
const reporter = await cli('company', 'create', '--name', 'Bench Reporter', '--json');
const hook = await api(watcher.apiKey, 'POST', '/api/v1/external/webhooks', {
  url: `http://127.0.0.1:${RECEIVER_PORT}/hook`,
  events: ['watchlist.match'],
});
secrets.push(hook.webhook.secret);

if (only.has('latency')) {
  const total = rate * seconds;
  const phones = Array.from({ length: total }, phone);
  await watch(watcher.apiKey, phones);
  const sentAt = new Map();
  const answeredAt = new Map();
  const inflight = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sent = performance.now();
    inflight.push(
      api(reporter.apiKey, 'POST', '/api/v1/external/reports', {
        fraudType: 'money_mule',
        fraudReason: REASON,
        identifiers: [{ label: 'phone', value: phones[i] }],
      }).then((report) => {
        sentAt.set(report.id, sent);
        answeredAt.set(report.id, performance.now());
      }),
    );
  }
  await Promise.all(inflight);
  const offered = (total / ((performance.now() - started) / 1000)).toFixed(1);
  for (let i = 0; i < 600 && arrivals.size < total; i++) await sleep(100);
  const fromSent = [];
  const fromAnswer = [];
  for (const [id, sent] of sentAt) {
    const at = arrivals.get(id);
    if (at === undefined) continue;
    fromSent.push(at - sent);
    fromAnswer.push(Math.max(0, at - (answeredAt.get(id) ?? sent)));
  }
  fromSent.sort((a, b) => a - b);
  fromAnswer.sort((a, b) => a - b);
  console.log(
    `\nlatency: ${total} matching reports at ${rate}/s requested (${offered}/s achieved), poll 200 ms\n` +
      `  delivered ${arrivals.size}/${total}, bad signatures ${badSignatures}\n` +
      `  create sent -> delivered:      p50 ${pct(fromSent, 50).toFixed(0)} ms, p99 ${pct(fromSent, 99).toFixed(0)} ms, max ${fromSent.at(-1).toFixed(0)} ms\n` +
      `  create answered -> delivered:  p50 ${pct(fromAnswer, 50).toFixed(0)} ms, p99 ${pct(fromAnswer, 99).toFixed(0)} ms\n` +
      `  load average now ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
}

if (only.has('crash')) {
  // 1. No worker polls (REDFLAG_WEBHOOK_POLL_MS=0, no job tick): events pile up in the outbox, then SIGKILL.
  await service.stop();
  service = startService({ REDFLAG_WEBHOOK_POLL_MS: '0' });
  await service.ready();
  const perReport = 20;
  const reports = Math.ceil(pending / perReport);
  const phones = Array.from({ length: reports * perReport }, phone);
  await watch(watcher.apiKey, phones);
  const idsBefore = messageIds.size;
  for (let r = 0; r < reports; r += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, reports - r) }, (_, k) =>
        api(reporter.apiKey, 'POST', '/api/v1/external/reports', {
          fraudType: 'money_mule',
          fraudReason: REASON,
          identifiers: phones.slice((r + k) * perReport, (r + k + 1) * perReport).map((value) => ({ label: 'phone', value })),
        }),
      ),
    );
  }
  const backlog = await cli('webhook', 'backlog', '--json');
  await service.kill9();
  console.log(`\ncrash: ${backlog.pending} deliveries pending when the service got SIGKILL`);

  // 2. Restarted with the worker on; killed again while deliveries are in flight.
  service = startService({ REDFLAG_WEBHOOK_POLL_MS: '100' });
  const restarted = performance.now();
  await service.ready();
  const target = idsBefore + Math.floor(backlog.pending / 3);
  for (let i = 0; i < 3000 && messageIds.size < target; i++) await sleep(20);
  await service.kill9();
  console.log(
    `  second SIGKILL after ${messageIds.size - idsBefore} of them arrived (claims in flight are held for the 60 s lease)`,
  );

  // 3. A third start finishes the backlog.
  service = startService({ REDFLAG_WEBHOOK_POLL_MS: '100' });
  await service.ready();
  const want = idsBefore + backlog.pending;
  for (let i = 0; i < 3000 && messageIds.size < want; i++) await sleep(100);
  const elapsed = (performance.now() - restarted) / 1000;
  // The last attempts are recorded just after the receiver answered them.
  let left = await cli('webhook', 'backlog', '--json');
  for (let i = 0; i < 60 && left.pending > 0; i++) {
    await sleep(500);
    left = await cli('webhook', 'backlog', '--json');
  }
  console.log(
    `  after restart: ${messageIds.size - idsBefore}/${backlog.pending} distinct webhook-ids received, ` +
      `${backlog.pending - (messageIds.size - idsBefore)} lost, ${received - messageIds.size} duplicate requests, ` +
      `${elapsed.toFixed(1)} s from the first restart to the last arrival, still pending ${left.pending}, ` +
      `bad signatures ${badSignatures}`,
  );
}

await service.stop();
receiver.close();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(`\nconnection resets retried (same Idempotency-Key): ${resets}`);
console.log(
  `\nload average at the end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (machine shared with other engineers' tests)`,
);
