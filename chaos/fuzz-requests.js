// The requests the fuzzer sends: one operation of the OpenAPI document with plausible values, some
// of them mutated, plus at most one disturbance beyond the operation (a bad body, an odd content
// type, a random path, method or header).
import { encode, mutate, NASTY_STRINGS, NASTY_TEXT, plausible } from './fuzz-values.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'get', 'G E T', 'GET\u0000'];
const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json, text/plain',
  'application/vnd.api+json',
  'Application/JSON',
  ';;;',
  `application/${'x'.repeat(3000)}`,
  '',
];
const BAD_BODIES = [
  '{',
  '{"a":1,}',
  '[]',
  'null',
  '"text"',
  '1e400',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '\ufeff{}',
  '{"fraudType":"money_mule","fraudType":"theft"}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":"${'\\u0000'.repeat(100)}"}`,
  '{"a":"\\ud800"}',
  '{"identifier":"phone","value":"\\u0000"}',
];
const HEADER_SETS = [
  [`x-request-id: ${'r'.repeat(500)}`],
  ['x-request-id: ../../etc'],
  ['x-api-key: '],
  ['x-api-key: rf_'],
  [`x-api-key: rf_${'A'.repeat(36)}`],
  [`x-api-key: ${'k'.repeat(9000)}`],
  ['x-api-key: rf_ünïcode'],
  ['idempotency-key: '],
  [`idempotency-key: ${'i'.repeat(2000)}`],
  ['idempotency-key: é'],
  ['accept: application/xml'],
  ['accept-encoding: gzip, br, zstd'],
  ['range: bytes=0-1'],
  ['expect: 100-continue'],
  ['origin: http://evil.example'],
  ['x-forwarded-for: 1.2.3.4, ::1, garbage'],
  ['host: '],
  ['transfer-encoding: chunked'],
  ['content-length: abc'],
  ['content-length: -1'],
  [`x-big: ${'b'.repeat(20_000)}`],
  ['bad header line'],
  ['x-nul: a\u0000b'],
  ['content-type: application/json', 'content-type: text/plain'],
];
const RANDOM_PATHS = [
  '/',
  '//',
  '*',
  'http://example.com/healthz',
  '/%',
  '/%zz',
  '/%00',
  '/api/v1/%E0%A4%A',
  '/api/v1/external/reports/submissions/%zz',
  '/api/v1/external/reports/submissions/%00',
  `/api/v1/external/reports/submissions/${'a'.repeat(150)}`,
  `/api/v1/files/${'f'.repeat(5000)}`,
  '/api/v1/../v1/meta-data/banks',
  '/api/v1/meta-data/banks/../../../etc/passwd',
  '/api/v1/meta-data/banks?%zz=1',
  '/api/v1/meta-data/banks?a=%',
  '/API/V1/META-DATA/BANKS',
  '/api/v1/meta-data/banks/',
  '/reports/search/',
  '/docs',
  '/docs/%zz',
  '/docs/static/%2e%2e/%2e%2e/package.json',
  '/openapi.json?x=%00',
  `/${'seg/'.repeat(2000)}`,
  '/ünïcode',
  '/healthz\u0000',
  '/healthz#fragment',
];

/** Every operation of the OpenAPI document, with its parameters and JSON or multipart body schema. */
export function operationsOf(openapi) {
  const operations = [];
  for (const [path, item] of Object.entries(openapi.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const content = op.requestBody?.content ?? {};
      operations.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: content['application/json']?.schema,
        multipart: Boolean(content['multipart/form-data']),
      });
    }
  }
  return operations;
}

export function buildRequest({ random, operations, ids, keys }) {
  const op = random.pick(operations);
  const key = random.pick(keys);
  const headers = ['host: fuzz'];
  if (key !== undefined) headers.push(`x-api-key: ${key}`);
  let method = op.method;
  let path = op.path.replace(/\{([^}]+)\}/g, () =>
    random.chance(0.6) && ids.pool.length
      ? random.pick(ids.pool)
      : random.chance(0.5)
        ? crypto.randomUUID()
        : random.pick(NASTY_TEXT),
  );
  const query = [];
  for (const param of op.params.filter((p) => p.in === 'query')) {
    if (random.chance(0.5)) continue;
    const value = random.chance(0.5) ? encode(plausible(param.schema, random, param.name)) : random.pick(NASTY_TEXT);
    query.push(`${encode(param.name)}=${value}`);
    if (random.chance(0.05)) query.push(`${encode(param.name)}=${random.pick(NASTY_TEXT)}`);
  }
  let body;
  let contentType = op.body ? 'application/json' : undefined;
  if (op.body) {
    const value = plausible(op.body, random);
    const mutations = random.int(3);
    let mutated = value;
    for (let i = 0; i < mutations; i += 1) mutated = mutate(mutated, random);
    body = JSON.stringify(mutated) ?? '';
  }
  if (op.multipart) {
    const boundary = 'fuzzboundary';
    contentType = random.chance(0.8) ? `multipart/form-data; boundary=${boundary}` : random.pick(CONTENT_TYPES);
    const bytes = random.pick(['%PDF-1.4\n%fuzz\n', '\x89PNG\r\n\x1a\n', 'MZ\x90\x00', '', '\u0000'.repeat(64)]);
    body = `--${boundary}\r\ncontent-disposition: form-data; name="${random.pick(['file', 'other', '\u0000'])}"; filename="${random.pick(['a.pdf', '../../x', '\u0000.png'])}"\r\ncontent-type: application/pdf\r\n\r\n${bytes}\r\n--${boundary}--\r\n`;
  }
  // Beyond the operation as described: one disturbance of one kind.
  switch (random.int(10)) {
    case 0:
      body = random.pick(BAD_BODIES);
      contentType = 'application/json';
      break;
    case 1:
      contentType = random.pick(CONTENT_TYPES);
      body ??= random.pick(['{}', 'a=b', '<x/>', '']);
      break;
    case 2:
      path = random.pick(RANDOM_PATHS);
      query.length = 0;
      break;
    case 3:
      method = random.pick(METHODS);
      break;
    case 4:
      headers.push(...random.pick(HEADER_SETS));
      break;
    case 5:
      path = `${path}/${random.pick(NASTY_TEXT)}`;
      break;
    case 6:
      if (random.chance(0.5)) body = undefined;
      else query.push(`${random.pick(['page', 'limit', 'action', 'x'])}=${encode(random.pick(NASTY_STRINGS))}`);
      break;
    default:
      break;
  }
  const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(body, random.chance(0.02) ? 'latin1' : 'utf8');
  if (contentType !== undefined && contentType !== '') headers.push(`content-type: ${contentType}`);
  if (body !== undefined) headers.push(`content-length: ${bytes.length}`);
  const fullPath = query.length ? `${path}?${query.join('&')}` : path;
  return { method, path: fullPath, head: [`${method} ${fullPath} HTTP/1.1`, ...headers].join('\r\n'), body: bytes };
}
