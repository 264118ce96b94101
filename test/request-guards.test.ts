import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const SUBMISSIONS = '/api/v1/external/reports/submissions';
const PERCENT = 'is not valid percent-encoding (a % must be followed by two hex digits, and the bytes must be UTF-8)';

describe('what a request holds that no route reads', () => {
  let t: TestApp;
  let company: Awaited<ReturnType<typeof createCompany>>;
  beforeAll(async () => {
    t = await buildTestApp();
    company = await createCompany(t);
  });
  afterAll(() => t.close());

  const send = (method: 'POST' | 'DELETE', url: string, body?: string) =>
    t.app.inject({
      method,
      url,
      headers: { ...key(company.apiKey), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: body }),
    });

  it('refuses a body on a route that takes none, and does nothing; none, {} and null still work', async () => {
    const draft = await createReport(t, company.apiKey, { status: 'draft' });
    for (const body of ['{"reason":"Paid back"}', '[1]', '"x"', '1', '{"a":"\\u0000"}']) {
      const res = await send('POST', `${SUBMISSIONS}/${draft.id}/publish`, body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json().data.errors).toEqual([
        { field: 'body', message: 'must be empty: this request takes no body (send none, or {})' },
      ]);
    }
    const read = await t.app.inject({ url: `${SUBMISSIONS}/${draft.id}`, headers: key(company.apiKey) });
    expect(read.json().data.report.status).toBe('draft');
    expect((await send('POST', `${SUBMISSIONS}/${draft.id}/publish`, '{}')).statusCode).toBe(200);
    const other = await createReport(t, company.apiKey, { status: 'draft' });
    expect((await send('POST', `${SUBMISSIONS}/${other.id}/publish`, 'null')).statusCode).toBe(200);
    const fourth = await createReport(t, company.apiKey, { status: 'draft' });
    expect((await send('POST', `${SUBMISSIONS}/${fourth.id}/publish`, '[]')).statusCode).toBe(200);
    const third = await createReport(t, company.apiKey, { status: 'draft' });
    expect((await send('POST', `${SUBMISSIONS}/${third.id}/publish`)).statusCode).toBe(200);
    // A route that reads a body still reads it (exit takes a reason).
    const exited = await send('POST', `${SUBMISSIONS}/${third.id}/exit`, JSON.stringify({ reason: 'Funds recovered in full.' }));
    expect(exited.statusCode).toBe(200);
    // An unknown route is still the 404 it was, body or not.
    expect((await send('POST', '/api/v1/external/nothing-here', '{"a":1}')).statusCode).toBe(404);
  });

  it('says a declared query parameter is broken percent-encoding; an undeclared one is ignored', async () => {
    for (const [query, field] of [
      ['page=%zz', 'page'],
      ['fraudType=%E0%A4%A', 'fraudType'],
      ['limit=5&from=2026-11-%', 'from'],
    ]) {
      const res = await t.app.inject({ url: `${SUBMISSIONS}?${query}`, headers: key(company.apiKey) });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().data.errors).toEqual([{ field, message: PERCENT }]);
    }
    const ignored = await t.app.inject({
      url: `${SUBMISSIONS}?whatever=%zz&constructor=%zz&toString=%E0&page=1`,
      headers: key(company.apiKey),
    });
    expect(ignored.statusCode).toBe(200);
    const encoded = await t.app.inject({ url: `${SUBMISSIONS}?fraudType=money%5Fmule`, headers: key(company.apiKey) });
    expect(encoded.statusCode).toBe(200);
  });
});
