import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, key } from './helpers/principals.js';
import { createReport, reportBody, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;

beforeAll(async () => {
  t = await buildTestApp();
  company = await createCompany(t);
});
afterAll(() => t.close());

const expectNotKept = (res: { headers: Record<string, unknown> }, what: string) => {
  expect(res.headers['cache-control'], `${what}: cache-control`).toBe('no-store');
  expect(res.headers['x-content-type-options'], `${what}: nosniff`).toBe('nosniff');
};

describe('what caches and browsers may keep', () => {
  it('marks every JSON answer no-store and nosniff: decode, search, create, errors, health', async () => {
    const report = await createReport(t, company.apiKey);
    const answers = {
      decode: await t.app.inject({
        method: 'GET',
        url: `/api/v1/external/reports/submissions/${report.id}/decode`,
        headers: key(company.apiKey),
      }),
      search: await search(t, company.apiKey, 'phone', '0803 123 4567'),
      create: await t.app.inject({
        method: 'POST',
        url: '/api/v1/external/reports',
        headers: key(company.apiKey),
        payload: reportBody(),
      }),
      'no key': await t.app.inject({ method: 'GET', url: '/api/v1/external/reports/submissions' }),
      'bad body': await t.app.inject({ method: 'POST', url: '/reports/search', headers: key(company.apiKey), payload: {} }),
      'no route': await t.app.inject({ method: 'GET', url: '/nothing/here' }),
      healthz: await t.app.inject({ method: 'GET', url: '/healthz' }),
    };
    expect(answers.decode.statusCode).toBe(200);
    expect(answers.search.statusCode).toBe(200);
    for (const [what, res] of Object.entries(answers)) expectNotKept(res, what);
    expect(answers.decode.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    expect(answers.decode.headers['x-frame-options']).toBe('DENY');
    // helmet's own defaults, computed once at start (decision 0095), not rebuilt per request.
    expect(answers.search.headers).toMatchObject({
      'cross-origin-resource-policy': 'same-origin',
      'cross-origin-opener-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    });
    // Served over plain HTTP: no HSTS (it would pin a host that has no certificate).
    expect(answers.decode.headers['strict-transport-security']).toBeUndefined();
  });

  it('keeps the banks list cacheable: public reference data with its own ETag', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks' });
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('sends HSTS when the public URL is https', async () => {
    const secure = await buildTestApp({ config: { publicUrl: 'https://redflag.example.ng' } });
    try {
      const res = await secure.app.inject({ method: 'GET', url: '/healthz' });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expectNotKept(res, 'healthz over https');
    } finally {
      await secure.close();
    }
  });
});

describe('error lists', () => {
  // 18,000 bad identifiers in a body under the size limit once answered with 36,001 errors (4 MB).
  const manyBad = Array.from({ length: 18_000 }, () => ({}));

  it('lists the first 20 field errors and counts them all', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: key(company.apiKey),
      payload: reportBody({ identifiers: manyBad }),
    });
    expect(res.statusCode).toBe(400);
    const { data } = res.json();
    expect(data.code).toBe('VALIDATION_FAILED');
    expect(data.errors).toHaveLength(20);
    expect(data.errorCount).toBeGreaterThan(20);
    expect(res.body.length).toBeLessThan(4096);
  });

  it('does the same on the public intake', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/public/reports',
      remoteAddress: '192.0.2.77',
      payload: { identifiers: manyBad },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toHaveLength(20);
    expect(res.json().data.errorCount).toBeGreaterThan(20);
    expect(res.body.length).toBeLessThan(4096);
  });

  it('counts a short list too', async () => {
    const res = await search(t, company.apiKey, 'bvn', '123');
    expect(res.json().data).toMatchObject({ errors: [{ field: 'value' }], errorCount: 1 });
  });
});
