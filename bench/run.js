// npm run bench [-- --identifiers N --connections C --duration S --warmup S --quick --reseed --profile --only a,b]
// Seeds (or reuses) a database, starts the service as production does, drives it over HTTP and prints
// one table; each scenario is also a share of a bare-Fastify ceiling measured in the same run.
// Embedded engine by default; DATABASE_URL=postgres://... for a PostgreSQL server. See bench/README.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkedBanks, createSearchPicker, identifierValue, Namespace, populationShape } from '../dist/bench/population.js';
import { IDENTIFIER_LABELS, shippedBankDirectory } from '../dist/identifiers/normalize.js';
import { measure } from './load.js';
import { prepareDatabase } from './seeded-database.js';
import { postgresCpuBetween, postgresCpuMs, startProcess } from './service.js';

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
    only: { type: 'string' },
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
const databaseUrl = process.env.DATABASE_URL || undefined;
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

const scenarios = [
  { id: 'search', name: 'search 60% unique / 20% common / 20% miss', request: search(() => picker.mixed()) },
  { id: 'common', name: 'search, common hit (~18 reports)', request: search(() => picker.common()) },
  { id: 'unique', name: 'search, unique hit', request: search(() => picker.unique()) },
  { id: 'miss', name: 'search, miss', request: search(() => picker.miss()) },
  { id: 'create', name: 'create (3 identifiers)', request: create },
  { id: 'list', name: 'list submissions (20 a page)', request: submissions },
  { id: 'banks', name: 'bank list', request: bankList },
].filter((s) => !flags.only || flags.only.split(',').includes(s.id));

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

const results = [];
let coldStartMs;
let rssAtStart;
let rssPeak = 0;
const profileDir = path.join(cacheDir, 'profiles', `${engine}-${Date.now()}`);
try {
  const ceilingBefore = await measureCeiling();
  const probeBody = JSON.stringify(picker.unique());
  const service = await startProcess({
    script: path.join(root, 'dist/server.js'),
    env: database.env,
    nodeArgs: flags.profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [],
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
    for (const scenario of scenarios) {
      process.stderr.write(`  ${scenario.name} ...`);
      let cpuAtStart;
      let postgresAtStart;
      const result = await measure({
        baseUrl: service.baseUrl,
        request: scenario.request,
        ...options,
        // CPU is counted over the measured seconds only (the warm-up ends before the first sample).
        onStart: () => {
          cpuAtStart = service.cpuMs();
          postgresAtStart = engine === 'server' ? postgresCpuMs() : undefined;
        },
        onSample: () => {
          rssPeak = Math.max(rssPeak, service.rss());
        },
      });
      result.serviceCpuMs = (service.cpuMs() - cpuAtStart) / result.completed;
      result.postgresCpuMs = postgresAtStart
        ? postgresCpuBetween(postgresAtStart, postgresCpuMs()) / result.completed
        : undefined;
      process.stderr.write(` ${Math.round(result.requestsPerSecond).toLocaleString()} req/s\n`);
      results.push({ ...scenario, result });
    }
  } finally {
    const exit = await service.stop();
    const failed = results.some(({ result }) => result.errors > 0 || result.non2xx > 0);
    if (failed || (exit.code !== 0 && exit.signal !== 'SIGTERM')) {
      console.error(`service exited with ${exit.code ?? exit.signal}; its last output:\n${service.output()}`);
    }
  }
  // --quick is a smoke check: one ceiling measurement is enough.
  const ceilingAfter = flags.quick ? ceilingBefore : await measureCeiling();
  const ceiling = (ceilingBefore.requestsPerSecond + ceilingAfter.requestsPerSecond) / 2;
  printTable(ceiling, ceilingBefore, ceilingAfter);
  if (flags.profile)
    console.log(`\nCPU profiles: node bench/profile-summary.js ${path.relative(process.cwd(), profileDir)}/*.cpuprofile`);
} finally {
  await database.cleanup();
}

function printTable(ceiling, before, after) {
  const ms = (v) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 1) : '-');
  const mb = (bytes) => `${Math.round(bytes / 2 ** 20)} MB`;
  const header = ['scenario', 'req/s', '% ceiling', 'p50 ms', 'p99 ms', 'p99.9 ms', 'errors', 'non-2xx', 'CPU ms/req'];
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
      `\nceiling before ${Math.round(before.requestsPerSecond)} req/s, after ${Math.round(after.requestsPerSecond)} req/s\n` +
      `service RSS at start (seeded database, after the first request): ${mb(rssAtStart)}\n` +
      `service RSS under load (peak): ${mb(rssPeak)}\n` +
      `cold start to the first served search: ${Math.round(coldStartMs)} ms\n` +
      `database size on disk (${database.sizeNote}): ${mb(database.sizeBytes)}`,
  );
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
