// kill -9 cycles with creates in flight, the container PID-1 case, and SIGTERM during a burst.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, createReport, reportBody } from './http.js';

/** Creates from `workers` concurrent loops until `stop()` says so; a request with no answer stays pending. */
async function burst(service, apiKey, { workers, untilStopped, onAnswer }) {
  const pending = new Map();
  const loop = async () => {
    while (!untilStopped.stopped) {
      const key = crypto.randomUUID();
      const body = reportBody();
      pending.set(key, body);
      const res = await createReport(service.baseUrl, apiKey, { key, body });
      if (res.status !== 0) pending.delete(key);
      onAnswer(res);
      if (res.status === 0 && untilStopped.stopped) return;
      if (res.status === 0) await sleep(20);
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  return pending;
}

function tally(stats, res, acked) {
  if (res.status === 201) acked.add(res.json.data.id);
  else if (res.status >= 500 && res.status !== 503) stats.fiveXx += 1;
  if (!res.envelope) stats.nonEnvelope += 1;
}

/** Retries one create with its Idempotency-Key until it is answered 201 (fresh or replayed). */
async function retryCreate(service, apiKey, key, body, acked) {
  const startedAt = performance.now();
  while (performance.now() - startedAt < 30_000) {
    const res = await createReport(service.baseUrl, apiKey, { key, body });
    if (res.status === 201) {
      acked.add(res.json.data.id);
      return { ms: performance.now() - startedAt, replayed: res.replayed };
    }
    const wait = res.retryAfter ? Number(res.retryAfter) * 1000 : 100;
    await sleep(Math.min(wait, 1_000));
  }
  return { ms: Number.POSITIVE_INFINITY, replayed: false };
}

/** Every acknowledged id must be readable: the loss count. */
export async function countLost(service, apiKey, acked) {
  let lost = 0;
  const ids = [...acked];
  const worker = async () => {
    while (ids.length > 0) {
      const id = ids.pop();
      const res = await call(service.baseUrl, 'GET', `/api/v1/external/reports/submissions/${id}`, {
        headers: { 'x-api-key': apiKey },
      });
      if (res.status !== 200) lost += 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return lost;
}

export async function killCycles(service, { apiKey }, { cycles }) {
  const acked = new Set();
  const stats = { fiveXx: 0, nonEnvelope: 0 };
  const restartMs = [];
  const retried = [];
  let refusals = 0;
  let pending = new Map();
  for (let cycle = 0; cycle < cycles; cycle++) {
    if (!service.alive()) {
      try {
        restartMs.push(await service.start());
      } catch {
        refusals += 1;
        continue;
      }
    }
    // The creates that were in flight at the last kill, retried with the same key at once.
    retried.push(...(await Promise.all([...pending].map(([key, body]) => retryCreate(service, apiKey, key, body, acked)))));
    const stop = { stopped: false };
    const running = burst(service, apiKey, { workers: 8, untilStopped: stop, onAnswer: (res) => tally(stats, res, acked) });
    await sleep(100 + Math.random() * 300);
    stop.stopped = true;
    await service.kill9();
    pending = await running;
  }
  if (!service.alive()) restartMs.push(await service.start());
  retried.push(...(await Promise.all([...pending].map(([key, body]) => retryCreate(service, apiKey, key, body, acked)))));
  const lost = await countLost(service, apiKey, acked);
  return { cycles, acked: acked.size, lost, restartMs, retried, refusals, ...stats };
}

/** Whether `unshare -pf --mount-proc` works here (root, or user namespaces allowed). */
export function canUnshare() {
  return spawnSync('unshare', ['-pf', '--mount-proc', 'true'], { stdio: 'ignore' }).status === 0;
}

/**
 * The container case: the service is PID 1 of its own PID namespace, is killed with SIGKILL, and
 * starts again as PID 1 — a pid-file lock would name its own pid and refuse for ever.
 */
export async function pidOneCycles(service, { cycles }) {
  if (service.alive()) await service.sigterm();
  const restartMs = [];
  let refusals = 0;
  for (let cycle = 0; cycle < cycles; cycle++) {
    try {
      restartMs.push(await service.start({ wrapper: ['unshare', '-pf', '--mount-proc'] }));
    } catch {
      refusals += 1;
      continue;
    }
    const inner = Number(
      execFileSync('pgrep', ['-P', String(service.child.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n')[0],
    );
    await service.kill9(inner);
  }
  restartMs.push(await service.start());
  return { cycles, restartMs, refusals };
}

/** SIGTERM in the middle of a burst of creates: every acknowledged one is there after the restart. */
export async function sigtermBurst(service, { apiKey }) {
  const acked = new Set();
  const stats = { fiveXx: 0, nonEnvelope: 0 };
  const stop = { stopped: false };
  const running = burst(service, apiKey, { workers: 16, untilStopped: stop, onAnswer: (res) => tally(stats, res, acked) });
  await sleep(500);
  // Creates go on while it drains: each is answered 201, or 503 in the envelope, or finds no listener.
  const { code } = await service.sigterm();
  stop.stopped = true;
  await running;
  await service.start();
  const lost = await countLost(service, apiKey, acked);
  return { acked: acked.size, lost, exitCode: code, ...stats };
}

/**
 * A screening job killed with -9 mid-job `kills` times: after each restart it must resume at its
 * next chunk and finish with every row screened once and audited once (no row twice, none lost).
 */
export async function screeningKills(service, { operatorKey }, { rows, kills }) {
  const made = await call(service.baseUrl, 'POST', '/api/v1/admin/companies', {
    headers: { 'x-api-key': operatorKey },
    body: { businessName: `Chaos Screening ${randomUUID().slice(0, 8)}`, rateLimitPerMinute: 1_000_000 },
  });
  if (made.status !== 201) throw new Error(`screening company: ${made.status}`);
  const headers = { 'x-api-key': made.json.data.apiKey };
  let text = 'label,value,ref\n';
  for (let i = 0; i < rows; i++) text += `nin,${20_000_000_000 + i},c-${i}\n`;
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/csv' }), 'customers.csv');
  const accepted = await fetch(`${service.baseUrl}/api/v1/external/screenings`, { method: 'POST', headers, body: form });
  if (accepted.status !== 202) throw new Error(`screening upload: ${accepted.status}`);
  const id = (await accepted.json()).data.job.id;
  const job = async () => (await call(service.baseUrl, 'GET', `/api/v1/external/screenings/${id}`, { headers })).json?.data?.job;
  const resumeMs = [];
  let killed = 0;
  for (let k = 0; k < kills; k++) {
    const before = (await job())?.rowsScreened ?? 0;
    if (before >= rows) break;
    // Killed while it screens: once it has moved on since the last restart.
    for (let waited = 0; ((await job())?.rowsScreened ?? 0) === before && waited < 30_000; waited += 20) await sleep(20);
    await sleep(Math.random() * 150);
    await service.kill9();
    killed++;
    await service.start();
    const at = performance.now();
    const after = (await job())?.rowsScreened ?? 0;
    for (let waited = 0; ((await job())?.rowsScreened ?? 0) === after && after < rows && waited < 60_000; waited += 20)
      await sleep(20);
    resumeMs.push(performance.now() - at);
  }
  let last;
  for (let waited = 0; waited < 300_000; waited += 200) {
    last = await job();
    if (last?.status === 'done' || last?.status === 'failed') break;
    await sleep(200);
  }
  const audit = await call(service.baseUrl, 'GET', '/api/v1/external/audit?action=screen&limit=1', { headers });
  return {
    rows,
    kills: killed,
    status: last?.status,
    screened: last?.rowsScreened,
    audited: audit.json?.data?.meta?.total,
    resumeMs,
  };
}
