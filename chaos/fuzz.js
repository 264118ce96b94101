// node chaos/fuzz.js [--requests N] [--seed S] [--port P]
// An OpenAPI-driven fuzzer: reads the service's /openapi.json and sends hostile requests with and
// without keys (wrong types, NUL bytes, unicode, huge numbers, bad JSON, odd content types, random
// paths, methods and headers, broken percent-encodings) over raw sockets. Every answer must be below
// 500 and in the envelope with its request id. Alone, it starts the built service (dist/, run
// `npm run build` first) on a temporary data directory, makes a company and operator key with the
// CLI, prints one table and exits 1 on any 5xx or non-envelope body. `npm run chaos` calls `fuzz()`.
// With DATABASE_URL set it runs the server engine in a schema of its own (dropped afterwards).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exchange } from './fuzz-http.js';
import { buildRequest, operationsOf } from './fuzz-requests.js';
import { createRandom } from './fuzz-values.js';

/** What the service under fuzz should be started with, so limits answer 429 rarely and routes get exercised. */
export const FUZZ_SERVICE_ENV = {
  REDFLAG_RATE_LIMIT_PER_MINUTE: '1000000',
  REDFLAG_FAILED_KEY_CHECKS_PER_MINUTE: '1000000',
  REDFLAG_PUBLIC_REPORTS_PER_HOUR: '1000000',
  REDFLAG_PUBLIC_UPLOADS_PER_HOUR: '1000000',
};

/**
 * Sends at least `requests` fuzzed requests to the service at `baseUrl` and returns
 * `{ requests, fiveXx, nonEnvelope, failures }` (failures: a few samples, each with method, path,
 * status and a body excerpt). `apiKey` is a company key, `operatorKey` an operator key.
 */
export async function fuzz({ baseUrl, apiKey, operatorKey, requests = 10_000, seed = 1, log = () => {}, concurrency = 8 }) {
  const url = new URL(baseUrl);
  const target = { host: url.hostname, port: Number(url.port || 80) };
  const random = createRandom(seed);
  const send = (request) => exchange({ ...target, ...request });

  const openapi = JSON.parse((await send({ head: 'GET /openapi.json HTTP/1.1\r\nhost: fuzz' })).body);
  const operations = operationsOf(openapi);
  const ids = await seedIds(send, { apiKey, operatorKey });
  log(`fuzz: ${operations.length} operations, ${ids.pool.length} known ids, ${requests} requests, seed ${seed}`);

  const keys = [
    undefined,
    apiKey,
    apiKey,
    apiKey,
    operatorKey,
    operatorKey,
    'rf_000000000000000000000000000000000000',
    'garbage',
  ];
  const build = () => buildRequest({ random, operations, ids, keys });
  const result = { requests: 0, fiveXx: 0, nonEnvelope: 0, noResponse: 0, byStatus: {}, failures: [] };
  const seenKinds = new Set();
  let issued = 0;
  const worker = async () => {
    while (issued < requests) {
      issued += 1;
      const request = build();
      const response = await send(request);
      result.requests += 1;
      result.byStatus[response.status] = (result.byStatus[response.status] ?? 0) + 1;
      const problem = judge(request, response);
      if (problem) {
        if (response.status >= 500) result.fiveXx += 1;
        else result.nonEnvelope += 1;
        if (response.status === 0) result.noResponse += 1;
        // One sample per kind of failure, so ten of the same do not hide the others.
        const kind = `${response.status} ${problem}`;
        if (result.failures.length < 10 && !seenKinds.has(kind)) {
          seenKinds.add(kind);
          result.failures.push(sample(request, response, problem));
        }
      }
      harvest(ids, response.body);
      if (result.requests % 2000 === 0)
        log(`fuzz: ${result.requests} sent, ${result.fiveXx} 5xx, ${result.nonEnvelope} non-envelope`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return result;
}

/** Creates a few objects (reports, a public report, a second company) so path ids can be real ones. */
async function seedIds(send, { apiKey, operatorKey }) {
  const ids = { pool: [], protected: new Set() };
  const call = async (method, path, key, body) => {
    const json = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const head = [`${method} ${path} HTTP/1.1`, 'host: fuzz', key ? `x-api-key: ${key}` : undefined]
      .concat(json ? ['content-type: application/json', `content-length: ${json.length}`] : [])
      .filter(Boolean)
      .join('\r\n');
    const response = await send({ head, body: json });
    try {
      return JSON.parse(response.body);
    } catch {
      return undefined;
    }
  };
  // The fuzzer's own company and keys are never aimed at (a revoked key would end the run's reach).
  for (const key of [apiKey, operatorKey]) {
    const who = await call('GET', '/api/v1/auth/whoami', key);
    for (const id of [who?.data?.keyId, who?.data?.company?.id, who?.data?.operator?.id]) if (id) ids.protected.add(id);
  }
  const report = (status) => ({
    fraudType: 'money_mule',
    fraudReason: 'Received stolen funds from three victims and moved them out within an hour of arrival.',
    identifiers: [{ label: 'phone', value: '0803 123 4567' }],
    status,
  });
  for (const status of ['published', 'draft', 'draft'])
    harvest(ids, JSON.stringify(await call('POST', '/api/v1/external/reports', apiKey, report(status))));
  harvest(
    ids,
    JSON.stringify(
      await call('POST', '/api/v1/public/reports', undefined, {
        reportingEntity: 'self',
        fraudType: 'romance_fraud',
        fraudReason: 'Met online, asked for money for a flight that never happened, then stopped answering.',
        financialInstitution: 'Access Bank',
        eventDate: '2025-01-15',
        identifiers: [{ label: 'email', value: 'lover@example.com' }],
      }),
    ),
  );
  harvest(ids, JSON.stringify(await call('POST', '/api/v1/admin/companies', operatorKey, { businessName: 'Fuzz target MFB' })));
  return ids;
}

const UUID_TEXT = /"(?:id|companyId|keyId|reportId)":"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/g;

/** Keeps ids seen in answers (up to 200) to aim later requests at real objects. */
function harvest(ids, body) {
  if (!body || ids.pool.length >= 200) return;
  for (const match of body.matchAll(UUID_TEXT)) {
    if (!ids.protected.has(match[1]) && !ids.pool.includes(match[1])) ids.pool.push(match[1]);
  }
}

/** Why a response breaks the rules, or undefined when it keeps them. */
export function judge(request, response) {
  if (response.status === 0) return `no response (${response.error ?? 'closed'})`;
  if (response.status >= 500) return 'server error';
  if (response.status < 400) return judgeSuccess(request, response);
  const requestId = response.headers['x-request-id'];
  if (!requestId) return 'no x-request-id header';
  if (request.method === 'HEAD') return undefined;
  let body;
  try {
    body = JSON.parse(response.body);
  } catch {
    return 'body is not JSON';
  }
  if (response.status === 404 && body?.success === false && body.message === 'Route not found' && body.data === null)
    return undefined;
  if (body?.success !== false || typeof body.message !== 'string') return 'not the envelope';
  if (typeof body.data?.code !== 'string') return 'no data.code';
  if (body.data.requestId !== requestId) return 'data.requestId differs from x-request-id';
  return undefined;
}

/** The OpenAPI document and the docs' own files are JSON, not the envelope; every other JSON answer is. */
const NOT_ENVELOPED = /^\/(openapi\.json|docs)(\/|\?|$)/;

function judgeSuccess(request, response) {
  const json = (response.headers['content-type'] ?? '').includes('json');
  if (!json || request.method === 'HEAD' || response.status === 204 || NOT_ENVELOPED.test(request.path)) return undefined;
  let body;
  try {
    body = JSON.parse(response.body);
  } catch {
    return 'JSON content type, body not JSON';
  }
  if (body?.success !== true || typeof body.message !== 'string' || !('data' in body)) return 'success not in the envelope';
  return undefined;
}

function sample(request, response, problem) {
  return {
    method: request.method.slice(0, 20),
    path: request.path.slice(0, 160),
    status: response.status,
    problem,
    body: (response.body ?? '').slice(0, 200),
    request: request.head.slice(0, 300),
    requestBody: request.body.toString('utf8').slice(0, 400),
  };
}

async function main() {
  const { values: flags } = parseArgs({
    options: {
      requests: { type: 'string', default: '10000' },
      seed: { type: 'string' },
      port: { type: 'string', default: '4201' },
      help: { type: 'boolean', default: false },
    },
  });
  if (flags.help) {
    console.log(
      fs
        .readFileSync(new URL(import.meta.url), 'utf8')
        .split('\n')
        .slice(0, 7)
        .join('\n'),
    );
    return 0;
  }
  const { startService } = await import('./fuzz-service.js');
  const seed = flags.seed === undefined ? Date.now() % 2 ** 31 : Number(flags.seed);
  const service = await startService({ port: Number(flags.port), env: FUZZ_SERVICE_ENV });
  try {
    const started = performance.now();
    const result = await fuzz({
      baseUrl: service.baseUrl,
      apiKey: service.apiKey,
      operatorKey: service.operatorKey,
      requests: Number(flags.requests),
      seed,
      log: (line) => console.error(line),
    });
    const seconds = (performance.now() - started) / 1000;
    console.table({
      fuzz: {
        engine: service.engine,
        seed,
        requests: result.requests,
        '5xx': result.fiveXx,
        'non-envelope': result.nonEnvelope,
        'no response': result.noResponse,
        'req/s': Math.round(result.requests / seconds),
      },
    });
    console.log('by status:', JSON.stringify(result.byStatus));
    for (const failure of result.failures) console.log(JSON.stringify(failure));
    return result.fiveXx + result.nonEnvelope > 0 ? 1 : 0;
  } finally {
    await service.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`fuzz: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
