import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digits, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { matchesSearchSchema } from './helpers/search-schema.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { uploadedUrl } from './helpers/uploads.js';

const BATCH = '/api/v1/external/reports/search/batch';
let t: TestApp;
let a: Awaited<ReturnType<typeof createCompany>>;
let b: Awaited<ReturnType<typeof createCompany>>;

beforeAll(async () => {
  t = await buildTestApp();
  a = await createCompany(t, { businessName: 'Alpha Microfinance Bank' });
  b = await createCompany(t, { businessName: 'Beta Fintech' });
});
afterAll(() => t.close());

const batch = (apiKey: string, items: unknown[]) =>
  t.app.inject({ method: 'POST', url: BATCH, headers: key(apiKey), payload: { items } });
type Result = {
  ref?: string;
  error?: { code: string; message: string };
  reports?: unknown[];
  summary?: { totalReports: number };
};
/** Evidence links are signed per response (a fresh expiry each time); everything else must be equal. */
const unsigned = (data: unknown) => JSON.parse(JSON.stringify(data).replace(/expires=\d+&signature=[^"]+/g, 'signed'));

describe('POST /api/v1/external/reports/search/batch', () => {
  it('answers every item in order exactly as a single search does, bad items with their own error', async () => {
    const phone = localPhone();
    const account = nuban();
    const bvn = `22${digits(9)}`;
    const evidence = await uploadedUrl(t, b.apiKey);
    await createReport(t, a.apiKey, { identifiers: [{ label: 'phone', value: phone }], fraudType: 'hacker' });
    await createReport(t, b.apiKey, {
      identifiers: [
        { label: 'phone', value: phone },
        { label: 'account', value: `${account}_access-bank` },
      ],
      attachments: [evidence],
    });
    await createReport(t, b.apiKey, { identifiers: [{ label: 'bvn', value: bvn }], status: 'draft' });
    const items = [
      { identifier: 'phone', value: `+234 ${phone.slice(1)}`, ref: 'customer-1' },
      { identifier: 'email', value: `nobody.${digits(6)}@example.com` },
      { identifier: 'phone', value: '12', ref: 'customer-3' },
      { identifier: 'colour', value: 'red' },
      { identifier: 'account', value: account },
      { identifier: 'bvn', value: bvn },
    ];
    const res = await batch(a.apiKey, items);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    const results = body.data.results as Result[];
    expect(results).toHaveLength(items.length);
    expect(results[0]?.ref).toBe('customer-1');
    expect(results[0]?.summary?.totalReports).toBe(2);
    expect(results[2]).toEqual({
      ref: 'customer-3',
      error: { code: 'VALIDATION_FAILED', field: 'items/2/value', message: expect.stringMatching(/digits/i) },
    });
    expect(results[3]?.error).toEqual({
      code: 'VALIDATION_FAILED',
      field: 'items/3/identifier',
      message: expect.stringMatching(/^must be one of account, bvn, /),
    });
    // The searchable items: the same data as a single search, word for word (a miss included, and a
    // draft-only identifier, which the quick "any match" step lets through to the full search).
    for (const n of [0, 1, 4, 5]) {
      const item = items[n] as { identifier: string; value: string };
      const single = (await search(t, a.apiKey, item.identifier, item.value)).json().data;
      const { ref: _ref, ...data } = results[n] as Result;
      expect(unsigned(data), `item ${n}`).toEqual(unsigned(single));
      expect(matchesSearchSchema({ success: true, message: 'm', data }), JSON.stringify(matchesSearchSchema.errors)).toBe(true);
    }
    expect(results[4]?.summary?.totalReports).toBe(1);
    expect(results[5]?.summary?.totalReports).toBe(0);
  });

  it('writes one audit row per searchable item, with the kind and count, never the value', async () => {
    const company = await createCompany(t);
    const phone = localPhone();
    await createReport(t, b.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const items = [
      { identifier: 'phone', value: phone },
      { identifier: 'email', value: `nobody.${digits(6)}@example.com` },
      { identifier: 'nin', value: digits(11) },
      { identifier: 'phone', value: 'not a phone' },
    ];
    const res = await batch(company.apiKey, items);
    expect(res.statusCode).toBe(200);
    const requestId = res.headers['x-request-id'];
    const audit = await t.app.inject({
      method: 'GET',
      url: '/api/v1/external/audit?action=search',
      headers: key(company.apiKey),
    });
    const rows = (audit.json().data.data as Array<{ requestId: string; label: string; resultCount: number }>).filter(
      (r) => r.requestId === requestId,
    );
    expect(rows.map((r) => `${r.label}:${r.resultCount}`).sort()).toEqual(['email:0', 'nin:0', 'phone:1']);
    expect(audit.body).not.toContain(phone.slice(1));
  });

  it('refuses an empty batch and one of more than 1,000 items, naming the field', async () => {
    const empty = await batch(a.apiKey, []);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().data.errors[0].field).toBe('items');
    const tooMany = await batch(
      a.apiKey,
      Array.from({ length: 1001 }, () => ({ identifier: 'phone', value: localPhone() })),
    );
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().data.errors[0].field).toBe('items');
    for (const body of [{ items: 'x' }, { items: [{ identifier: 'phone', value: localPhone() }], colour: 'red' }, {}]) {
      const res = await t.app.inject({ method: 'POST', url: BATCH, headers: key(a.apiKey), payload: body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('answers any bad item with its own error, naming its field, and still searches the others', async () => {
    const good = { identifier: 'phone', value: localPhone(), ref: 'good' };
    const bad: Array<[item: unknown, field: string, message: RegExp]> = [
      [{ identifier: 'phone', value: '', ref: 'r1' }, 'items/0/value', /must not be empty/],
      [{ identifier: 'phone', value: null, ref: 'r2' }, 'items/1/value', /must be text/],
      [{ identifier: 'phone', ref: 'r3' }, 'items/2/value', /is required/],
      [{ identifier: 'email', value: `${'a'.repeat(315)}@x.com`, ref: 'r4' }, 'items/3/value', /at most 320 characters/],
      [{ identifier: 'phone', value: '0803\u0000123', ref: 'r5' }, 'items/4/value', /NUL/],
      [{ identifier: 'phone', value: '\ud800', ref: 'r6' }, 'items/5/value', /lone surrogate/],
      [{ identifier: '', value: localPhone(), ref: 'r7' }, 'items/6/identifier', /must be one of/],
      [{ identifier: 'phone', value: 8031234567, ref: 'r8' }, 'items/7/value', /must be text/],
      [{ identifier: 'phone', value: localPhone(), colour: 'red', ref: 'r9' }, 'items/8/colour', /is not an accepted field/],
      [{ identifier: 'phone', value: localPhone(), ref: 'bad\u0000ref' }, 'items/9/ref', /NUL/],
      ['phone', 'items/10', /must be an object/],
    ];
    const res = await batch(a.apiKey, [...bad.map(([item]) => item), good]);
    expect(res.statusCode).toBe(200);
    const { results } = res.json().data;
    bad.forEach(([item, field, message], n) => {
      const ref = (item as { ref?: string }).ref;
      expect(results[n], field).toEqual({
        ...(ref && !ref.includes('\u0000') ? { ref } : {}),
        error: { code: 'VALIDATION_FAILED', field, message: expect.stringMatching(message) },
      });
    });
    expect(results[bad.length]).toMatchObject({ ref: 'good', summary: { totalReports: 0 } });
  });

  it('counts each item against the rate limit, shared with single searches', async () => {
    const limited = await createCompany(t, { rateLimitPerMinute: 50 });
    const items = Array.from({ length: 30 }, () => ({ identifier: 'phone', value: localPhone() }));
    const first = await batch(limited.apiKey, items);
    expect(first.statusCode).toBe(200);
    // What is left counts every item of the batch.
    expect(first.headers['ratelimit-remaining']).toBe('20');
    const over = await batch(limited.apiKey, items);
    expect(over.statusCode).toBe(429);
    expect(over.json().data.code).toBe('RATE_LIMITED');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // The refused batch gave its items back (it counts as one request): 31 of 50 are spent.
    expect((await search(t, limited.apiKey, 'phone', localPhone())).statusCode).toBe(200);
    expect((await batch(limited.apiKey, items.slice(0, 18))).statusCode).toBe(200);
    // 50 spent, by batches and single searches alike: the next single search is refused.
    expect((await search(t, limited.apiKey, 'phone', localPhone())).statusCode).toBe(429);
    // More items than the limit allows in a minute can never pass: said so, naming the field.
    const fresh = await createCompany(t, { rateLimitPerMinute: 50 });
    const tooBig = await batch(
      fresh.apiKey,
      Array.from({ length: 51 }, () => ({ identifier: 'phone', value: localPhone() })),
    );
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json().data.errors[0].field).toBe('items');
  });
});
