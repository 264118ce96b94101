// npm run chaos [-- --quick] [--cycles N] [--fuzz-requests N]
// The fault suite as an instrument, on the embedded engine or (with DATABASE_URL) a PostgreSQL
// server, with Redis when REDIS_URL is set: kill -9 cycles with creates in flight, the container
// PID-1 case, a screening job killed mid-job, database outages (refuse, reset, blackhole, terminated backends), Redis refused and
// blackholed, SIGTERM during a burst, and the OpenAPI fuzzer. Prints one table; exits 1 on any
// acknowledged report lost, refusal to start, process exit during an outage, 5xx (other than the
// 503 an outage calls for), or body outside the envelope. Not part of `npm test`: its figures are timings.
import { parseArgs } from 'node:util';
import { canUnshare, killCycles, pidOneCycles, screeningKills, sigtermBurst } from './crash-scenarios.js';
import { fuzz } from './fuzz.js';
import { databaseOutage, redisOutages } from './outage-scenarios.js';
import { prepareService } from './service.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    cycles: { type: 'string' },
    'fuzz-requests': { type: 'string' },
  },
});
const databaseUrl = process.env.DATABASE_URL || undefined;
const redisUrl = process.env.REDIS_URL || undefined;
const engine = databaseUrl ? 'server' : 'embedded';
const quick = values.quick;
const cycles = Number(values.cycles ?? (quick ? 5 : engine === 'server' ? 30 : 100));
const fuzzRequests = Number(values['fuzz-requests'] ?? (quick ? 2_000 : 10_000));
const outageSeconds = quick ? 3 : 10;

const rows = [];
const row = (scenario, measure, value, ok = true) => rows.push({ scenario, measure, value: String(value), ok });
const ms = (value) => (value === undefined ? 'never' : `${Math.round(value)} ms`);
const stats = (list) => {
  if (list.length === 0) return 'n/a';
  const sorted = [...list].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `p50 ${ms(at(0.5))}, max ${ms(sorted.at(-1))} (n=${sorted.length})`;
};
const log = (message) => process.stderr.write(`chaos: ${message}\n`);

const base = engine === 'server' ? 4160 : 4150;
const service = await prepareService({
  databaseUrl,
  redisUrl,
  ports: { http: base, pgProxy: base + 1, redisProxy: base + 2 },
});
try {
  log(`${engine} engine${redisUrl ? ' with Redis' : ''}; ${cycles} kill -9 cycles, ${fuzzRequests} fuzzed requests`);
  row('start', 'first start to ready', ms(await service.start()));
  const keys = await service.keys();

  log('kill -9 cycles');
  const k = await killCycles(service, keys, { cycles });
  row('kill -9', 'cycles', k.cycles);
  row('kill -9', 'acknowledged creates lost', `${k.lost} of ${k.acked}`, k.lost === 0);
  row('kill -9', 'refusals to start', k.refusals, k.refusals === 0);
  row('kill -9', 'restart to ready', stats(k.restartMs), Math.max(0, ...k.restartMs) < 3_000 || 'slow');
  const retriedMs = k.retried.map((r) => r.ms);
  row(
    'kill -9',
    'in-flight creates retried (same key) to 201',
    `${stats(retriedMs)}; ${k.retried.filter((r) => r.replayed).length} replayed`,
    retriedMs.every(Number.isFinite) && (Math.max(0, ...retriedMs) < 2_000 || 'slow'),
  );
  row('kill -9', '5xx / non-envelope', `${k.fiveXx} / ${k.nonEnvelope}`, k.fiveXx + k.nonEnvelope === 0);

  if (engine === 'embedded' && canUnshare()) {
    log('PID 1 in its own PID namespace');
    const p = await pidOneCycles(service, { cycles: quick ? 2 : 5 });
    row('PID 1 (unshare -pf)', 'kill -9 then start again: refusals', `${p.refusals} of ${p.cycles}`, p.refusals === 0);
    row('PID 1 (unshare -pf)', 'restart to ready', stats(p.restartMs));
  } else {
    row(
      'PID 1 (unshare -pf)',
      'not run',
      engine === 'server' ? 'server engine (no data-directory lock)' : 'unshare not permitted',
    );
  }

  if (engine === 'server') {
    for (const mode of ['refuse', 'reset', 'blackhole', 'terminate']) {
      log(`database ${mode} for ${outageSeconds} s`);
      const o = await databaseOutage(service, keys, { mode, seconds: outageSeconds });
      const scenario = `db ${mode} ${outageSeconds} s`;
      row(scenario, 'process exits', o.exits, o.exits === 0);
      row(scenario, '201 / 503 UNAVAILABLE', `${o.created} / ${o.unavailable}`);
      row(
        scenario,
        '503 without Retry-After, other 5xx or no answer, non-envelope',
        `${o.without503RetryAfter}, ${o.fiveXx}, ${o.nonEnvelope}`,
        o.without503RetryAfter + o.fiveXx + o.nonEnvelope === 0,
      );
      row(
        scenario,
        '/readyz 503 after',
        ms(o.readyz503Ms),
        mode === 'terminate' || (o.readyz503Ms !== undefined && (o.readyz503Ms < 2_000 || 'slow')),
      );
      row(
        scenario,
        'first 201 after the link is back',
        ms(o.recoveryMs),
        o.recoveryMs !== undefined && (o.recoveryMs < 1_000 || 'slow'),
      );
    }
  } else {
    row('db outages', 'not run', 'embedded engine (in process: no link to cut)');
  }

  if (redisUrl) {
    log('Redis refused and blackholed');
    const r = await redisOutages(service, keys, { requests: quick ? 30 : 200 });
    row('redis', 'request median with Redis up', ms(r.baselineMs));
    row('redis refused', 'extra per request', ms(r.refusedCostMs), r.refusedCostMs < 5 || 'slow');
    row('redis blackhole', 'first request (detection)', ms(r.detectionMs));
    row('redis blackhole', 'extra per request after detection', ms(r.blackholeCostMs), r.blackholeCostMs < 5 || 'slow');
    row('redis', 'failed requests / reconnected after', `${r.failed} / ${r.reconnected}`, r.failed === 0 && r.reconnected);
  } else {
    row('redis', 'not run', 'REDIS_URL not set');
  }

  log('kill -9 during a screening job');
  const j = await screeningKills(service, keys, { rows: quick ? 30_000 : 100_000, kills: quick ? 3 : 5 });
  row('screening kill -9', 'kills mid-job', j.kills);
  row(
    'screening kill -9',
    'rows screened / audited / in the file',
    `${j.screened} / ${j.audited} / ${j.rows} (${j.status})`,
    j.status === 'done' && j.screened === j.rows && j.audited === j.rows,
  );
  row('screening kill -9', 'restart to the job moving again', stats(j.resumeMs));

  log('SIGTERM during a burst');
  const s = await sigtermBurst(service, keys);
  row('SIGTERM burst', 'acknowledged creates lost', `${s.lost} of ${s.acked}`, s.lost === 0);
  row(
    'SIGTERM burst',
    'exit code / 5xx / non-envelope',
    `${s.exitCode} / ${s.fiveXx} / ${s.nonEnvelope}`,
    s.exitCode === 0 && s.fiveXx + s.nonEnvelope === 0,
  );

  log(`fuzzing ${fuzzRequests} requests`);
  const f = await fuzz({ baseUrl: service.baseUrl, ...keys, requests: fuzzRequests, seed: 1, log });
  row('fuzz', 'requests', f.requests);
  row('fuzz', '5xx / non-envelope', `${f.fiveXx} / ${f.nonEnvelope}`, f.fiveXx + f.nonEnvelope === 0);
  for (const failure of f.failures.slice(0, 5)) log(`fuzz failure: ${JSON.stringify(failure).slice(0, 300)}`);
} catch (error) {
  row('runner', 'error', error instanceof Error ? error.message.split('\n')[0] : String(error), false);
} finally {
  await service.cleanUp().catch(() => {});
}

// `ok` is true, false, or 'slow': a timing over its target is reported, not failed (shared machines are noisy).
const verdict = (ok) => (ok === true ? 'ok' : ok === 'slow' ? 'SLOW' : 'FAIL');
const width = (key) => Math.max(key.length, ...rows.map((r) => String(r[key]).length));
const widths = { scenario: width('scenario'), measure: width('measure'), value: width('value') };
console.log(`Redflag chaos (${engine}${quick ? ', quick' : ''})`);
console.log(
  `${'scenario'.padEnd(widths.scenario)} | ${'measure'.padEnd(widths.measure)} | ${'value'.padEnd(widths.value)} | verdict`,
);
for (const r of rows) {
  console.log(
    `${r.scenario.padEnd(widths.scenario)} | ${r.measure.padEnd(widths.measure)} | ${r.value.padEnd(widths.value)} | ${verdict(r.ok)}`,
  );
}
const failed = rows.filter((r) => r.ok === false).length;
console.log(failed === 0 ? 'chaos: no loss, no 5xx, no body outside the envelope' : `chaos: ${failed} check(s) failed`);
process.exit(failed === 0 ? 0 : 1);
