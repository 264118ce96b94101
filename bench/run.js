// npm run bench [-- --identifiers N --connections C --duration S --warmup S --quick --reseed --profile --gc --only a,b --workers 1,2,4 [--worker-cpu C] --screen-rows N]
// Seeds (or reuses) a database, starts the service as production does, drives it over HTTP and prints
// one table; each scenario is also a share of a bare-Fastify ceiling measured in the same run.
// Embedded engine by default; DATABASE_URL=postgres://... for a PostgreSQL server. See bench/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { describeGc, gcTrace, isGcLine } from '../dist/bench/gc-trace.js';
import { checkedBanks, createSearchPicker, identifierValue, Namespace, populationShape } from '../dist/bench/population.js';
import { IDENTIFIER_LABELS, shippedBankDirectory } from '../dist/identifiers/normalize.js';
import { cpuQuotaUnavailable, limitWorkers } from './cpu-quota.js';
import { measure } from './load.js';
import { measureScreening } from './screen.js';
import { prepareDatabase } from './seeded-database.js';
import { machineBusyBetween, machineCpuTicks, postgresCpuBetween, postgresCpuMs, startProcess } from './service.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values: flags } = parseArgs({
  options: {
    identifiers: { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    quick: { type: 'boolean', default: false },
    reseed: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    gc: { type: 'boolean', default: false },
    only: { type: 'string' },
    workers: { type: 'string' },
    'worker-cpu': { type: 'string' },
    'screen-rows': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(
    fs
      .readFileSync(new URL(import.meta.url), 'utf8')
      .split('\n')
      .slice(0, 4)
      .join('\n'),
  );
  process.exit(0);
}
const int = (text, fallback, name) => {
  if (text === undefined) return fallback;
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`);
  return n;
};
const options = {
  identifiers: int(flags.identifiers, flags.quick ? 10_000 : 1_000_000, 'identifiers'),
  connections: int(flags.connections, 50, 'connections'),
  duration: int(flags.duration, flags.quick ? 2 : 10, 'duration'),
  warmup: int(flags.warmup, flags.quick ? 1 : 3, 'warmup'),
};
const workerCounts = (flags.workers ?? '')
  .split(',')
  .filter(Boolean)
  .map((w) => int(w, 1, 'workers'));
const screenRows = int(flags['screen-rows'], flags.quick ? 20_000 : 1_000_000, 'screen-rows');
const databaseUrl = process.env.DATABASE_URL || undefined;
if (workerCounts.length && !databaseUrl)
  throw new Error('--workers needs DATABASE_URL: the embedded database is served by one process');
// Cores each worker may use (a cgroup quota), for a scaling table on a machine one worker fills: see cpu-quota.js.
const workerCpu = flags['worker-cpu'] === undefined ? undefined : Number(flags['worker-cpu']);
if (workerCpu !== undefined) {
  if (!(workerCpu > 0 && workerCpu <= os.availableParallelism()))
    throw new Error(`--worker-cpu must be a number of cores above 0 and at most ${os.availableParallelism()}`);
  if (!workerCounts.length) throw new Error('--worker-cpu goes with --workers');
  const why = cpuQuotaUnavailable();
  if (why) throw new Error(`--worker-cpu: ${why}`);
}
const engine = databaseUrl ? 'server' : 'embedded';
const cacheDir = path.join(root, '.bench-cache');

const cpus = os.cpus();
console.log(
  `Redflag bench — ${engine} engine, ${options.identifiers.toLocaleString()} identifiers, ${options.connections} connections, ` +
    `${options.duration} s per scenario\nmachine: ${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)} at start\n`,
);

const database = await prepareDatabase({ ...options, cacheDir, reseed: flags.reseed, databaseUrl });
const shape = populationShape(options.identifiers);
const directory = shippedBankDirectory();
const banks = checkedBanks(directory);
const apiKeys = database.meta.companies.map((c) => c.apiKey);
const picker = createSearchPicker(shape, banks, 7);

let keyTurn = 0;
const nextKey = () => apiKeys[keyTurn++ % apiKeys.length];
const json = (method, url, body) => ({
  method,
  path: url,
  headers: { 'content-type': 'application/json', 'x-api-key': nextKey() },
  body: JSON.stringify(body),
});
const search = (pick) => () => json('POST', '/reports/search', pick());

// Created values live in their own namespace, away from the seeded ones; a random base keeps runs apart.
let created = Math.floor(Math.random() * 40_000_000);
const REASON = 'Bench: the customer moved funds received from several victims to wallets at three other institutions.';
const create = () => {
  const n = created++;
  const identifiers = [0, 1, 2].map((k) => {
    const label = IDENTIFIER_LABELS[(n + k) % IDENTIFIER_LABELS.length];
    return { label, value: identifierValue(label, Namespace.created, n, banks) };
  });
  return json('POST', '/api/v1/external/reports', { fraudType: 'money_mule', fraudReason: REASON, identifiers });
};
let page = 0;
const submissions = () => ({
  method: 'GET',
  path: `/api/v1/external/reports/submissions?page=${1 + (page++ % 5)}&limit=20`,
  headers: { 'x-api-key': nextKey() },
});
const bankList = { method: 'GET', path: '/api/v1/meta-data/banks' };
// A batch of 100. The customer-book mix is what a bank screening its own customers sends: nearly
// all of them nobody's (98% misses, 1.5% unique hits, 0.5% common); the search mix is the single
// search's 60/20/20, for comparison.
const BATCH_SIZE = 100;
const customerBook = () => {
  const r = Math.random();
  return r < 0.98 ? picker.miss() : r < 0.995 ? picker.unique() : picker.common();
};
const batch = (pick) => () =>
  json('POST', '/api/v1/external/reports/search/batch', {
    items: Array.from({ length: BATCH_SIZE }, (_, i) => ({ ...pick(), ref: String(i) })),
  });

// The search mix's latency by the size of its answers, which tells its three kinds apart: which of
// them make its p99. Sizes on the wire, headers included, seen on the seeded 1,000,000 schema: a
// miss 1,008 bytes, a unique hit 2,230–3,206, a common hit 26,827–31,515.
const SEARCH_ANSWER_CLASSES = [
  { name: 'misses', under: 1_500 },
  { name: 'unique hits', under: 8_000 },
  { name: 'common hits', under: Infinity },
];

const scenarios = [
  {
    id: 'search',
    name: 'search 60% unique / 20% common / 20% miss',
    request: search(() => picker.mixed()),
    sizeClasses: SEARCH_ANSWER_CLASSES,
  },
  { id: 'common', name: 'search, common hit (~18 reports)', request: search(() => picker.common()) },
  { id: 'unique', name: 'search, unique hit', request: search(() => picker.unique()) },
  { id: 'miss', name: 'search, miss', request: search(() => picker.miss()) },
  { id: 'batch', name: 'batch of 100, customer-book mix (98% miss)', request: batch(customerBook), items: BATCH_SIZE },
  { id: 'batch-mixed', name: 'batch of 100, search mix', request: batch(() => picker.mixed()), items: BATCH_SIZE, optIn: true },
  { id: 'create', name: 'create (3 identifiers)', request: create },
  { id: 'list', name: 'list submissions (20 a page)', request: submissions },
  { id: 'banks', name: 'bank list', request: bankList },
].filter((s) => (flags.only ? flags.only.split(',').includes(s.id) : !s.optIn));
// `screen` is not an autocannon scenario: a whole job, measured by bench/screen.js (opt-in, it takes minutes).
const screenAsked = (flags.only ?? '').split(',').includes('screen');

const ceilingRequest = {
  method: 'POST',
  path: '/search',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ identifier: 'bvn', value: '22212345678' }),
};

async function measureCeiling() {
  const ceiling = await startProcess({
    script: path.join(root, 'bench/ceiling.js'),
    env: {},
    probe: async (url) => (await fetch(`${url}/search`, ceilingRequest)).ok,
  });
  try {
    process.stderr.write('  ceiling (bare Fastify) ...');
    let cpuAtStart;
    const result = await measure({
      baseUrl: ceiling.baseUrl,
      request: ceilingRequest,
      ...options,
      onStart: () => {
        cpuAtStart = ceiling.cpuMs();
      },
    });
    result.serviceCpuMs = (ceiling.cpuMs() - cpuAtStart) / result.completed;
    process.stderr.write(` ${Math.round(result.requestsPerSecond).toLocaleString()} req/s\n`);
    return result;
  } finally {
    await ceiling.stop();
  }
}

let results = [];
let coldStartMs;
let rssAtStart;
let rssPeak = 0;
let screening;
const profileDir = path.join(cacheDir, 'profiles', `${engine}-${Date.now()}`);

/** Starts the service (with `env` added), warms it, runs every scenario, and stops it. */
async function runScenarios(env) {
  results = [];
  rssPeak = 0;
  const probeBody = JSON.stringify(picker.unique());
  const service = await startProcess({
    script: path.join(root, 'dist/server.js'),
    // /metrics answers only operators' keys and allow-listed addresses; the screen scenario reads it.
    env: { REDFLAG_METRICS_ALLOW: '127.0.0.1', ...database.env, ...env },
    nodeArgs: [...(flags.profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), ...(flags.gc ? ['--trace-gc'] : [])],
    omitFromOutput: flags.gc ? isGcLine : undefined,
    // The first served request is a real search, on a cold process and database.
    probe: async (url) =>
      (
        await fetch(`${url}/reports/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKeys[0] },
          body: probeBody,
        })
      ).status === 200,
  });
  coldStartMs = service.coldStartMs;
  rssAtStart = service.rss();
  let removeLimits;
  const gc = flags.gc ? gcTrace(service.stdout) : undefined;
  try {
    // Steady state, not a cold cache, is what the scenarios compare: the first one would otherwise
    // also pay for reading the database into memory (the cold start is its own figure above).
    process.stderr.write('  warming the database with mixed searches ...\n');
    await measure({
      baseUrl: service.baseUrl,
      request: search(() => picker.mixed()),
      ...options,
      duration: flags.quick ? options.warmup : options.warmup * 3,
      warmup: 0,
    });
    // Held after the warm-up: a quarter of a core would spend the warm-up compiling, not serving.
    if (workerCpu !== undefined) removeLimits = await limitWorkers(service.pid, Number(env.REDFLAG_WORKERS), workerCpu);
    for (const scenario of scenarios) {
      process.stderr.write(`  ${scenario.name} ...`);
      let cpuAtStart;
      let postgresAtStart;
      let machineAtStart;
      let measuredFrom;
      const result = await measure({
        baseUrl: service.baseUrl,
        request: scenario.request,
        sizeClasses: scenario.sizeClasses,
        ...options,
        // CPU is counted over the measured seconds only (the warm-up ends before the first sample).
        onStart: () => {
          cpuAtStart = service.cpuMs();
          postgresAtStart = engine === 'server' ? postgresCpuMs() : undefined;
          machineAtStart = machineCpuTicks();
          measuredFrom = performance.now();
        },
        onSample: () => {
          rssPeak = Math.max(rssPeak, service.rss());
        },
      });
      result.serviceCpuMs = (service.cpuMs() - cpuAtStart) / result.completed;
      result.machineBusy = machineBusyBetween(machineAtStart, machineCpuTicks());
      result.gc = gc?.between(measuredFrom, performance.now());
      result.postgresCpuMs = postgresAtStart
        ? postgresCpuBetween(postgresAtStart, postgresCpuMs()) / result.completed
        : undefined;
      process.stderr.write(` ${Math.round(result.requestsPerSecond).toLocaleString()} req/s\n`);
      results.push({ ...scenario, result });
    }
    if (screenAsked) {
      screening = await measureScreening({
        service,
        apiKey: apiKeys[0],
        cacheDir,
        cacheKey: `${engine}_n${options.identifiers}`,
        rows: screenRows,
        pick: customerBook,
        search: search(() => picker.mixed()),
        connections: 10,
        duration: flags.quick ? 3 : 10,
      });
    }
  } finally {
    const exit = await service.stop();
    await removeLimits?.();
    const failed = results.some(({ result }) => result.errors > 0 || result.non2xx > 0);
    if (failed || (exit.code !== 0 && exit.signal !== 'SIGTERM')) {
      console.error(`service exited with ${exit.code ?? exit.signal}; its last output:\n${service.output()}`);
    }
  }
  return results;
}

try {
  const ceilingBefore = await measureCeiling();
  const scaling = [];
  if (workerCounts.length) {
    for (const workers of workerCounts) {
      process.stderr.write(`  — ${workers} worker${workers === 1 ? '' : 's'} —\n`);
      const runResults = await runScenarios({ REDFLAG_WORKERS: String(workers) });
      // Each run's own resource figures: the table of each is printed after all of them.
      scaling.push({ workers, results: runResults, rssAtStart, rssPeak, coldStartMs });
    }
  } else {
    await runScenarios({});
  }
  // --quick is a smoke check: one ceiling measurement is enough.
  const ceilingAfter = flags.quick ? ceilingBefore : await measureCeiling();
  const ceiling = (ceilingBefore.requestsPerSecond + ceilingAfter.requestsPerSecond) / 2;
  for (const run of scaling) {
    ({ results, rssAtStart, rssPeak, coldStartMs } = run);
    console.log(`\n${run.workers} worker${run.workers === 1 ? '' : 's'}:`);
    printTable(ceiling, ceilingBefore, ceilingAfter);
  }
  if (scaling.length === 0) printTable(ceiling, ceilingBefore, ceilingAfter);
  if (scaling.length > 1) printScaling(scaling);
  if (screening) printScreening(screening);
  if (flags.profile)
    console.log(`\nCPU profiles: node bench/profile-summary.js ${path.relative(process.cwd(), profileDir)}/*.cpuprofile`);
} finally {
  await database.cleanup();
}

/** Each scenario's throughput by worker count, and what each added worker added (against the first's). */
function printScaling(scaling) {
  if (workerCpu !== undefined)
    console.log(
      `\nEach worker was held to ${workerCpu} of a core by a cgroup quota (--worker-cpu); the primary, PostgreSQL and the load generator were not.`,
    );
  console.log(
    '\nScaling (req/s by workers; in brackets what each added worker added, as a share of the first worker, ' +
      "and how busy the machine's cores were: service, PostgreSQL and load generator together, steal included; once they are " +
      'near 100%, another worker has no core to run on):',
  );
  for (const { id, name } of scaling[0].results) {
    const runs = scaling.map((run) => run.results.find((r) => r.id === id)?.result);
    const rates = runs.map((r) => r?.requestsPerSecond ?? 0);
    const cells = rates.map((rate, i) => {
      // Under --worker-cpu: how much of their quotas the workers used (the primary's little included);
      // near 100% means each worker was held by its own quota, not waiting on the others or the database.
      const quotaUsed =
        workerCpu === undefined
          ? ''
          : `quota ${Math.round(((runs[i]?.serviceCpuMs ?? 0) * rate) / 10 / (scaling[i].workers * workerCpu))}% used, `;
      const busy = `${quotaUsed}cores ${Math.round((runs[i]?.machineBusy ?? 0) * 100)}% busy`;
      if (i === 0) return `${scaling[i].workers}: ${Math.round(rate)} (${busy})`;
      const added = (rate - rates[i - 1]) / (scaling[i].workers - scaling[i - 1].workers) / rates[0];
      return `${scaling[i].workers}: ${Math.round(rate)} (${added.toFixed(2)}×, ${busy})`;
    });
    console.log(`  ${name}: ${cells.join(' | ')}`);
  }
}

function printScreening(r) {
  const mb = (bytes) => `${Math.round(bytes / 2 ** 20)} MB`;
  console.log(
    `\nscreen: ${r.rows.toLocaleString()} rows in ${r.seconds.toFixed(1)} s (upload done at ${r.uploadedSeconds.toFixed(1)} s), ` +
      `${Math.round(r.rowsPerSecond).toLocaleString()} rows/s; ${r.matches.toLocaleString()} matched, ${r.errors.toLocaleString()} rejected\n` +
      `  service RSS peak during the job: ${mb(r.rssPeak)}\n` +
      `  single searches (search mix, 10 connections): alone ${Math.round(r.searchAlone.requestsPerSecond)}/s p99 ${r.searchAlone.p99.toFixed(1)} ms ` +
      `(before the job ${r.searchAlone.p99Before.toFixed(1)}, after ${r.searchAlone.p99After.toFixed(1)}); ` +
      `beside the job ${Math.round(r.searchBeside.requestsPerSecond)}/s p99 ${r.searchBeside.p99.toFixed(1)} ms ` +
      `(${(r.searchBeside.p99 / r.searchAlone.p99).toFixed(2)}× alone; worst 5-s slice ${r.searchBeside.worstSliceP99.toFixed(1)} ms)\n` +
      `  their p99 by 5-s slice (– where none was answered): ${r.searchBeside.sliceP99s.map((p99) => p99?.toFixed(0) ?? '–').join(' ')} ms`,
  );
  if (r.checkpoints)
    console.log(
      `  embedded checkpoints during the job: ${r.checkpoints.count}, ${r.checkpoints.seconds.toFixed(1)} s in all, requests waiting; ` +
        `by 5-s slice: ${r.checkpoints.sliceSeconds.map((seconds) => (seconds * 1000).toFixed(0)).join(' ')} ms`,
    );
}

/** The load generator's CPU per request and how busy its one thread was (near 100%: it is the limit). */
function loadGen(r) {
  return `${r.loadCpuMs.toFixed(2)} (${Math.round(r.loadBusy * 100)}%)`;
}

function printTable(ceiling, before, after) {
  const ms = (v) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 1) : '-');
  const mb = (bytes) => `${Math.round(bytes / 2 ** 20)} MB`;
  const header = [
    'scenario',
    'req/s',
    '% ceiling',
    'p50 ms',
    'p99 ms',
    'p99.9 ms',
    'errors',
    'non-2xx',
    'CPU ms/req',
    'load gen',
  ];
  const rows = [
    [
      'ceiling: bare Fastify POST (mean of before/after)',
      Math.round(ceiling),
      '100%',
      ms((before.p50 + after.p50) / 2),
      ms((before.p99 + after.p99) / 2),
      ms((before.p999 + after.p999) / 2),
      before.errors + after.errors,
      before.non2xx + after.non2xx,
      ((before.serviceCpuMs + after.serviceCpuMs) / 2).toFixed(2),
      loadGen({ loadCpuMs: (before.loadCpuMs + after.loadCpuMs) / 2, loadBusy: (before.loadBusy + after.loadBusy) / 2 }),
    ],
    ...results.map(({ name, result: r }) => [
      name,
      Math.round(r.requestsPerSecond),
      `${((r.requestsPerSecond / ceiling) * 100).toFixed(1)}%`,
      ms(r.p50),
      ms(r.p99),
      ms(r.p999),
      r.errors,
      r.non2xx,
      r.postgresCpuMs === undefined
        ? r.serviceCpuMs.toFixed(2)
        : `${r.serviceCpuMs.toFixed(2)} + ${r.postgresCpuMs.toFixed(2)} pg`,
      loadGen(r),
    ]),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  console.log(`\n${line(header)}\n|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log(
    '\nCPU ms/req: CPU time of the service process(es) per completed request over the measured seconds' +
      (engine === 'server' ? ", + that of every PostgreSQL process on the machine (other clients' included)" : '') +
      "\nload gen: the load generator's own CPU ms per request, and in brackets its share of one core (autocannon runs on one thread)" +
      `\nceiling before ${Math.round(before.requestsPerSecond)} req/s, after ${Math.round(after.requestsPerSecond)} req/s\n` +
      `service RSS at start (seeded database, after the first request): ${mb(rssAtStart)}\n` +
      // Sampled during the autocannon scenarios only (a screening job reports its own peak).
      (results.length ? `service RSS under load (peak): ${mb(rssPeak)}\n` : '') +
      `cold start to the first served search: ${Math.round(coldStartMs)} ms\n` +
      `database size on disk (${database.sizeNote}): ${mb(database.sizeBytes)}` +
      (database.cacheNote ? `; ${database.cacheNote}` : ''),
  );
  for (const { name, items, result: r } of results.filter((s) => s.items)) {
    console.log(
      `${name}: ${Math.round(r.requestsPerSecond * items).toLocaleString()} identifiers screened a second ` +
        `(CPU ${((r.serviceCpuMs + (r.postgresCpuMs ?? 0)) / items).toFixed(3)} ms per identifier)`,
    );
  }
  for (const { name, result: r } of results.filter((s) => s.result.bySize)) {
    const classes = r.bySize.map(
      (c) =>
        `${c.name} ${c.count.toLocaleString()} (p50 ${ms(c.p50)}, p99 ${ms(c.p99)} ms; ` +
        `${Math.round(c.shareOfSlowest * 100)}% of the slowest 1%)`,
    );
    console.log(
      `${name}, by answer size: ${classes.join('; ')}; the slowest 1% ended in ` +
        `${r.tail.slowestIn} of the run's ${r.tail.of} tenths of a second`,
    );
  }
  for (const { name, result: r } of results.filter((s) => s.result.gc)) console.log(describeGc(name, r.gc, r.completed));
  const failed = results.filter(({ result: r }) => r.errors > 0 || r.non2xx > 0);
  for (const { name, result } of failed) console.log(`!! ${name}: status codes ${JSON.stringify(result.statusCodes)}`);
  fs.writeFileSync(
    path.join(cacheDir, `last-${engine}.json`),
    JSON.stringify(
      { options, engine, ceiling, before, after, results, rssAtStart, rssPeak, coldStartMs, size: database.sizeBytes },
      null,
      2,
    ),
  );
  if (failed.length > 0) process.exitCode = 1;
}
