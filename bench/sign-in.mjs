// Sign-in cost and its effect on everyone else: sign-in p99 (target < 300 ms) and search p99 without
// and with 10 sign-ins a second (target: within 20 %). argon2id runs on libuv's thread pool, so the
// event loop keeps serving searches while passwords are hashed.
//   npm run build && node bench/sign-in.mjs [--duration 20] [--rate 100]
// Embedded engine in a temporary directory; the service on port 4450. Figures on a shared machine are noisy:
// phase A (searches alone) runs before and after B (searches + sign-ins) to show the noise.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values: flags } = parseArgs({
  options: { duration: { type: 'string', default: '20' }, rate: { type: 'string', default: '50' } },
});
const duration = Number(flags.duration);
const searchRate = Number(flags.rate);
const SIGN_INS_PER_SECOND = 10;
const USERS = 20;
const PORT = 4450;
const base = `http://127.0.0.1:${PORT}`;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-bench-sign-in-'));
const env = {
  ...process.env,
  REDFLAG_DATA_DIR: dataDir,
  PORT: String(PORT),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  // The failure timing below makes many failed sign-ins from one address on purpose.
  REDFLAG_SIGN_IN_FAILURES_PER_ACCOUNT: '1000000',
  REDFLAG_SIGN_IN_FAILURES_PER_ADDRESS: '1000000',
  // /metrics answers only operators' keys and allow-listed addresses; the bench reads it from here.
  REDFLAG_METRICS_ALLOW: '127.0.0.1',
};
delete env.DATABASE_URL;
delete env.REDIS_URL;

const server = spawn(process.execPath, [path.join(root, 'dist/server.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
process.on('exit', () => server.kill('SIGTERM'));
for (let i = 0; ; i++) {
  if ((await fetch(`${base}/readyz`).catch(() => undefined))?.ok) break;
  if (i > 600) throw new Error('the service did not start');
  await sleep(100);
}

function cli(...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/redflag.js'), ...args, '--json'], { env });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`redflag ${args.join(' ')}: ${code}`)),
    );
  });
}
async function call(method, url, body, headers = {}) {
  const res = await fetch(base + url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

// Set-up: a company with reports to find, and users who can sign in.
const { companyId, apiKey } = await cli('company', 'create', '--name', 'Bench Sign-in MFB', '--rate-limit', '1000000');
const PASSWORD = 'a long benchmark passphrase';
const emails = [];
for (let i = 0; i < USERS; i++) {
  const email = `bench.user.${i}@bank.example`;
  const { inviteUrl } = await cli('user', 'invite', '--company', companyId, '--email', email, '--role', 'analyst');
  await call('POST', '/api/v1/auth/invitations/accept', {
    token: new URL(inviteUrl).searchParams.get('token'),
    password: PASSWORD,
    name: `User ${i}`,
  });
  emails.push(email);
}
const phone = '08031234567';
for (let i = 0; i < 20; i++) {
  await call(
    'POST',
    '/api/v1/external/reports',
    {
      fraudType: 'money_mule',
      fraudReason: 'Benchmark report: the account received and moved stolen funds within an hour of opening.',
      identifiers: [{ label: 'phone', value: phone }],
    },
    { 'x-api-key': apiKey },
  );
}

function searches(seconds) {
  return autocannon({
    url: `${base}/reports/search`,
    method: 'POST',
    connections: 10,
    overallRate: searchRate,
    duration: seconds,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: 'phone', value: phone }),
  });
}

async function signInsDuring(seconds) {
  const times = [];
  const pending = [];
  let n = 0;
  const timer = setInterval(() => {
    const email = emails[n++ % emails.length];
    const started = performance.now();
    pending.push(
      fetch(`${base}/api/v1/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD }),
      }).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
        times.push(performance.now() - started);
      }),
    );
  }, 1000 / SIGN_INS_PER_SECOND);
  await sleep(seconds * 1000);
  clearInterval(timer);
  await Promise.all(pending);
  return times.sort((a, b) => a - b);
}

/**
 * The service's own event-loop delay over a phase, from /metrics (prom-client resets its delay
 * histogram at every scrape): the direct answer to "does hashing block the event loop".
 */
async function loopLag() {
  const text = await (await fetch(`${base}/metrics`)).text();
  const read = (name) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? Number.NaN) * 1000;
  return { p99: read('nodejs_eventloop_lag_p99_seconds'), max: read('nodejs_eventloop_lag_max_seconds') };
}
async function phase(run) {
  await loopLag();
  const result = await run();
  return { result, lag: await loopLag() };
}
const lagText = ({ lag }) => `event-loop delay p99 ${lag.p99.toFixed(1)} ms, max ${lag.max.toFixed(1)} ms`;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const row = (name, r) =>
  `${name.padEnd(34)} ${String(r.requests.total).padStart(6)} req  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}`;

await searches(3); // warm-up
const load = () => os.loadavg()[0].toFixed(2);
console.log(
  `sign-in bench — embedded engine, ${os.cpus().length} CPUs, Node ${process.version}; search at ${searchRate}/s for ${duration} s a phase`,
);
console.log(`load average at start ${load()}`);
const A1 = await phase(() => searches(duration));
const B = await phase(() => Promise.all([searches(duration), signInsDuring(duration)]));
const A2 = await phase(() => searches(duration));
const C = await phase(() => signInsDuring(duration));
const [a1, a2, alone] = [A1.result, A2.result, C.result];
const [b, signIns] = B.result;
console.log(`${row('A  search alone', a1)}  | ${lagText(A1)}`);
console.log(`${row(`B  search + ${SIGN_INS_PER_SECOND} sign-ins/s`, b)}  | ${lagText(B)}`);
console.log(`${row('A2 search alone again', a2)}  | ${lagText(A2)}`);
const signInRow = (name, times) =>
  `${name.padEnd(34)} ${String(times.length).padStart(6)} in ${duration} s  p50 ${pct(times, 50).toFixed(1)} ms  p99 ${pct(times, 99).toFixed(1)} ms  max ${times.at(-1).toFixed(1)} ms`;
console.log(`${signInRow('C  sign-ins alone (10/s)', alone)}  | ${lagText(C)}`);
console.log(signInRow('B  sign-ins during searches', signIns));
console.log('(sign-in: argon2id 19 MiB, t=2, p=1, on the libuv thread pool)');
// No account discovery by timing: a wrong password and an unknown e-mail, interleaved.
const failures = { wrong: [], unknown: [] };
for (let i = 0; i < 40; i++) {
  for (const [kind, email] of [
    ['wrong', emails[i % emails.length]],
    ['unknown', `nobody.${i}@bank.example`],
  ]) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'not the password at all' }),
    });
    await res.arrayBuffer();
    if (res.status !== 401) throw new Error(`a failed sign-in answered ${res.status}`);
    failures[kind].push(performance.now() - started);
  }
}
for (const list of Object.values(failures)) list.sort((x, y) => x - y);
console.log(
  `failed sign-in, 40 each: wrong password p50 ${pct(failures.wrong, 50).toFixed(1)} ms, unknown e-mail p50 ${pct(failures.unknown, 50).toFixed(1)} ms`,
);
const baseline = Math.max(a1.latency.p99, a2.latency.p99);
console.log(
  `search p99 with sign-ins vs the worse of the two baselines: ${(((b.latency.p99 - baseline) / baseline) * 100).toFixed(1)} %`,
);
console.log(`load average at end ${load()}`);
server.kill('SIGTERM');
await new Promise((resolve) => server.on('exit', resolve));
fs.rmSync(dataDir, { recursive: true, force: true });
