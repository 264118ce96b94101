// Database and Redis outages through the runner's own proxies: the service must stay up, answer
// 503 UNAVAILABLE with Retry-After while the database is away, and recover as soon as it is back.
import { setTimeout as sleep } from 'node:timers/promises';
import { call, createReport } from './http.js';

const readyStatus = async (service) => (await call(service.baseUrl, 'GET', '/readyz', { timeoutMs: 10_000 })).status;

export async function databaseOutage(service, { apiKey }, { mode, seconds }) {
  const exitsBefore = service.unexpectedExits;
  const outcome = { mode, created: 0, unavailable: 0, without503RetryAfter: 0, fiveXx: 0, nonEnvelope: 0 };
  if ((await createReport(service.baseUrl, apiKey)).status !== 201) throw new Error(`the service was not serving before ${mode}`);
  const startedAt = performance.now();
  let terminator;
  if (mode === 'terminate') {
    terminator = setInterval(() => service.terminateBackends().catch(() => {}), 100);
  } else {
    await service.pgProxy.setMode(mode);
  }
  const until = startedAt + seconds * 1000;
  // /readyz is asked until it says 503 (a backend terminated now and then may never make it unready).
  const readiness = (async () => {
    while (performance.now() < until) {
      if ((await readyStatus(service)) === 503) return performance.now() - startedAt;
      await sleep(50);
    }
    return undefined;
  })();
  const loop = async () => {
    while (performance.now() < until) {
      const res = await createReport(service.baseUrl, apiKey);
      if (res.status === 201) outcome.created += 1;
      else if (res.status === 503) {
        outcome.unavailable += 1;
        if (!res.retryAfter || res.json?.data?.code !== 'UNAVAILABLE') outcome.without503RetryAfter += 1;
      } else if (res.status >= 500 || res.status === 0) outcome.fiveXx += 1;
      if (!res.envelope) outcome.nonEnvelope += 1;
    }
  };
  await Promise.all([loop(), loop(), loop(), loop()]);
  outcome.readyz503Ms = await readiness;
  clearInterval(terminator);
  await service.pgProxy.setMode('pass');
  const restoredAt = performance.now();
  outcome.recoveryMs = undefined;
  while (performance.now() - restoredAt < 30_000) {
    if ((await createReport(service.baseUrl, apiKey)).status === 201) {
      outcome.recoveryMs = performance.now() - restoredAt;
      break;
    }
    await sleep(10);
  }
  outcome.exits = Math.max(service.unexpectedExits - exitsBefore, service.alive() ? 0 : 1);
  if (!service.alive()) await service.start();
  return outcome;
}

async function whoamiMs(service, apiKey, count) {
  const times = [];
  let failed = 0;
  for (let i = 0; i < count; i++) {
    const res = await call(service.baseUrl, 'GET', '/api/v1/auth/whoami', { headers: { 'x-api-key': apiKey } });
    if (res.status !== 200) failed += 1;
    times.push(res.ms);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], failed };
}

async function redisConnected(service) {
  for (let i = 0; i < 200; i++) {
    const res = await call(service.baseUrl, 'GET', '/readyz');
    if (res.json?.data?.checks?.find((c) => c.name === 'redis')?.detail === 'connected') return true;
    await sleep(100);
  }
  return false;
}

/** Per-request cost of a refused and of a blackholed Redis, against the same requests with Redis up. */
export async function redisOutages(service, { apiKey }, { requests }) {
  const baseline = await whoamiMs(service, apiKey, requests);
  await service.redisProxy.setMode('refuse');
  const refused = await whoamiMs(service, apiKey, requests);
  await service.redisProxy.setMode('pass');
  await redisConnected(service);
  await service.redisProxy.setMode('blackhole');
  const detection = await whoamiMs(service, apiKey, 1);
  const blackholed = await whoamiMs(service, apiKey, requests);
  await service.redisProxy.setMode('pass');
  const back = await redisConnected(service);
  return {
    baselineMs: baseline.median,
    refusedCostMs: refused.median - baseline.median,
    detectionMs: detection.median,
    blackholeCostMs: blackholed.median - baseline.median,
    failed: baseline.failed + refused.failed + detection.failed + blackholed.failed,
    reconnected: back,
  };
}
