import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceOf } from '../src/modules/public-reports/reference.js';
import { expectEachNotFound, expectStatusAnswer, idsThatAreNot, withoutRequestId } from './helpers/capability-ids.js';
import { createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, nextAddress, uniquePhone } from './helpers/public-reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

// The status page of the person who filed a public report (decision 0129).
let t: TestApp;
let operator: Awaited<ReturnType<typeof createOperator>>;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await createOperator(t);
});
afterAll(() => t.close());

const statusUrl = (id: string) => `/api/v1/public/reports/${id}/status`;
const status = (id: string, remoteAddress = nextAddress()) => t.app.inject({ method: 'GET', url: statusUrl(id), remoteAddress });
const moderate = (id: string, action: 'publish' | 'reject', payload?: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: `${ADMIN}/${id}/${action}`,
    headers: key(operator.apiKey),
    ...(payload ? { payload } : {}),
  });

const REJECTION = 'Operator note: the story reads like a test entry';
const WITHDRAWAL = 'Operator note: the bank proved the account is the victim’s own';

async function expectStatus(id: string, expected: string) {
  return expectStatusAnswer(await status(id), referenceOf(id), expected);
}

/** What the answer must never hold: the id, the report's contents, an operator or their words. */
function expectNothingElse(text: string, id: string, phone: string) {
  for (const secret of [
    id,
    id.replace(/-/g, ''),
    phone,
    phone.slice(-7),
    '0803',
    'Jane',
    'example.com',
    'Access',
    'romance',
    operator.operatorId,
    REJECTION,
    WITHDRAWAL,
    'Operator note',
  ]) {
    expect(text, secret).not.toContain(secret);
  }
}

describe('GET /api/v1/public/reports/:id/status', () => {
  it('says received, then published, then withdrawn, along the real flow', async () => {
    const phone = uniquePhone();
    const id = await filePublicReport(t, phone);
    const received = await expectStatus(id, 'received');
    expect(received.body.data.updatedAt).toBe(received.body.data.receivedAt);
    expect(received.body.message).toBe('Report status fetched successfully');
    expectNothingElse(received.text, id, phone);

    expect((await moderate(id, 'publish')).statusCode).toBe(200);
    const published = await expectStatus(id, 'published');
    expect(published.body.data.receivedAt).toBe(received.body.data.receivedAt);
    expect(Date.parse(published.body.data.updatedAt)).toBeGreaterThan(Date.parse(received.body.data.receivedAt));
    expectNothingElse(published.text, id, phone);

    expect((await moderate(id, 'reject', { reason: WITHDRAWAL })).statusCode).toBe(200);
    const withdrawn = await expectStatus(id, 'withdrawn');
    expect(Date.parse(withdrawn.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(published.body.data.updatedAt));
    expectNothingElse(withdrawn.text, id, phone);
  });

  it('says not_published for a draft an operator rejected, without the reason', async () => {
    const phone = uniquePhone();
    const id = await filePublicReport(t, phone);
    expect((await moderate(id, 'reject', { reason: REJECTION })).statusCode).toBe(200);
    const { text } = await expectStatus(id, 'not_published');
    expectNothingElse(text, id, phone);
  });

  it('reads an id in capitals as the same report', async () => {
    const id = await filePublicReport(t, uniquePhone());
    expect((await status(id.toUpperCase())).json().data).toEqual((await status(id)).json().data);
  });

  it('writes no log line that holds the id (the access lines of this route are not written)', async () => {
    const id = await filePublicReport(t, uniquePhone());
    const before = t.logLines.length;
    expect((await status(id)).statusCode).toBe(200);
    const unknown = randomUUID();
    expect((await status(unknown)).statusCode).toBe(404);
    const written = t.logLines.slice(before).join('\n');
    expect(written).not.toContain(id);
    expect(written).not.toContain(unknown);
    // The filing route still logs its requests as every route does: the quiet is this route's own.
    await filePublicReport(t, uniquePhone());
    expect(t.logLines.slice(before).join('\n')).toContain('/api/v1/public/reports');
  });

  it('writes no audit row: a public read records nothing of who asked', async () => {
    const id = await filePublicReport(t, uniquePhone());
    const count = async () =>
      (
        await t.database.db
          .selectFrom('audit_events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = Number(await count());
    await status(id);
    await status(randomUUID());
    expect(Number(await count())).toBe(before);
  });

  it('answers an unknown, a malformed and a deleted report’s id with the same 404 as a random id', async () => {
    const random = await status(randomUUID());
    expect(random.statusCode).toBe(404);
    const notFound = withoutRequestId(random);
    expect(notFound).toEqual({ success: false, message: 'Public report not found', data: { code: 'NOT_FOUND' } });

    const real = await filePublicReport(t, uniquePhone());
    const deleted = await filePublicReport(t, uniquePhone());
    // As the clean-up deletes an unpublished report (public-reports.cleanup.ts): the row, and its identifiers by cascade.
    await t.database.db.deleteFrom('public_reports').where('id', '=', deleted).execute();
    await expectEachNotFound(idsThatAreNot(real, deleted), status, random);
  });

  it('answers a NUL or an over-long id as every route does, the same whether or not the report exists', async () => {
    // Both are refused before the route runs, by the project's rules for every path parameter (a
    // NUL is a 400 naming the field; past the router's 100 characters a 414): they depend on the
    // text sent alone, so they tell nothing of which reports exist.
    const real = await filePublicReport(t, uniquePhone());
    const random = randomUUID();
    for (const [suffix, statusCode] of [
      ['%00', 400],
      ['%00%00%00', 400],
      ['x'.repeat(10 * 1024), 414],
    ] as const) {
      const known = await status(`${real}${suffix}`);
      const unknown = await status(`${random}${suffix}`);
      expect(known.statusCode).toBe(statusCode);
      expect(unknown.statusCode).toBe(statusCode);
      expect(withoutRequestId(known)).toEqual(withoutRequestId(unknown));
    }
    const nulOnly = await status('%00');
    expect(nulOnly.statusCode).toBe(400);
    expect(nulOnly.json().data.errors).toEqual([{ field: 'id', message: expect.stringContaining('NUL') }]);
  });

  it('limits each client address to 60 reads a minute, not-found answers included', async () => {
    const id = await filePublicReport(t, uniquePhone());
    const address = '203.0.113.77';
    for (let i = 0; i < 60; i++) {
      const res = await status(i % 2 === 0 ? id : randomUUID(), address);
      expect(res.statusCode, `read ${i + 1}`).toBe(i % 2 === 0 ? 200 : 404);
      expect(res.headers['ratelimit-limit']).toBe('60');
    }
    const limited = await status(id, address);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().data.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).not.toContain(id);
    // Another address is counted on its own; the filing route keeps its own count too.
    expect((await status(id, '203.0.113.78')).statusCode).toBe(200);
  });

  it('is documented: public, its four fields described, 404 and 429 listed', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/api/v1/public/reports/{id}/status'].get;
    expect(operation.security).toEqual([]);
    expect(operation.operationId).toBe('getPublicReportsByIdStatus');
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '404', '429']));
    const data = operation.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(data.properties).sort()).toEqual(['receivedAt', 'reference', 'status', 'updatedAt']);
    expect(data.properties.status.enum).toEqual(['received', 'published', 'not_published', 'withdrawn']);
    for (const field of Object.values<{ description?: string }>(data.properties)) expect(field.description).toBeTruthy();
  });
});
