import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceOf } from '../src/modules/public-reports/reference.js';
import { expectEachNotFound, expectStatusAnswer, idsThatAreNot, withoutRequestId } from './helpers/capability-ids.js';
import { movableClock } from './helpers/clock.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { nextAddress, uniquePhone } from './helpers/public-reports.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

// The status page of the person who asked for a review (decision 0133, after 0129).
const PUBLIC = '/api/v1/public/review-requests';
const ADMIN = '/api/v1/admin/review-requests';
const STATEMENT =
  'This is my own salary account. I have never sent or received money from anyone I do not know, and my bank can confirm it.';
const NOTE = 'Operator note: disputed the member report found; told her by e-mail.';

const clock = movableClock();
let t: TestApp;
let operator: Awaited<ReturnType<typeof createOperator>>;
let company: Awaited<ReturnType<typeof createCompany>>;
beforeAll(async () => {
  t = await buildTestApp({ clock, config: { jobTickSeconds: 0 } });
  operator = await createOperator(t);
  company = await createCompany(t);
});
afterAll(() => t.close());

const statusUrl = (id: string) => `${PUBLIC}/${id}/status`;
const status = (id: string, remoteAddress = nextAddress()) => t.app.inject({ method: 'GET', url: statusUrl(id), remoteAddress });

/** What a person sends: every value here must stay out of the status answer. */
const person = (listed: string) => ({
  name: 'Adaeze Okafor',
  email: 'adaeze.okafor@example.com',
  phone: '0809 876 5432',
  identifiers: [
    { label: 'phone', value: listed },
    { label: 'bvn', value: '22212345678' },
  ],
  statement: STATEMENT,
});

/** Sends a review request from its own address and returns its id (fails the test otherwise). */
async function ask(listed = uniquePhone()): Promise<{ id: string; listed: string }> {
  const res = await t.app.inject({ method: 'POST', url: PUBLIC, payload: person(listed), remoteAddress: nextAddress() });
  if (res.statusCode !== 201) throw new Error(`request failed ${res.statusCode}: ${res.body}`);
  return { id: res.json().data.id, listed };
}

const close = (id: string, outcome: 'disputed' | 'not_listed' | 'declined') =>
  t.app.inject({
    method: 'POST',
    url: `${ADMIN}/${id}/close`,
    headers: key(operator.apiKey),
    payload: { outcome, note: NOTE },
  });

async function expectStatus(id: string, expected: 'waiting' | 'answered') {
  const answer = expectStatusAnswer(await status(id), referenceOf(id), expected);
  expect(answer.body.message).toBe('Review request status fetched successfully');
  return answer;
}

/** What the answer must never hold: the id, what the person sent, the outcome, the operators' words. */
function expectNothingElse(text: string, id: string, listed: string) {
  for (const secret of [
    id,
    id.replace(/-/g, ''),
    listed,
    listed.slice(-7),
    '22212345678',
    '8765432',
    'Adaeze',
    'Okafor',
    'example.com',
    'salary account',
    'bvn',
    'phone',
    'disputed',
    'not_listed',
    'declined',
    'outcome',
    'Operator note',
    'told her',
    operator.operatorId,
  ]) {
    expect(text, secret).not.toContain(secret);
  }
}

describe('GET /api/v1/public/review-requests/:id/status', () => {
  it('says waiting, then answered once the operators close it, along the real flow', async () => {
    // A number a member has listed: the answer must not tell it apart from one that is not.
    const listed = uniquePhone();
    await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: listed }] });
    const { id } = await ask(listed);
    const waiting = await expectStatus(id, 'waiting');
    expect(waiting.body.data.updatedAt).toBe(waiting.body.data.receivedAt);
    expectNothingElse(waiting.text, id, listed);

    const closed = await close(id, 'disputed');
    expect(closed.statusCode, closed.body).toBe(200);
    const answered = await expectStatus(id, 'answered');
    expect(answered.body.data.receivedAt).toBe(waiting.body.data.receivedAt);
    expect(answered.body.data.updatedAt).toBe(closed.json().data.request.closedAt);
    expect(Date.parse(answered.body.data.updatedAt)).toBeGreaterThan(Date.parse(answered.body.data.receivedAt));
    expectNothingElse(answered.text, id, listed);
  });

  it('answers alike whatever the outcome: the status never says whether anything is listed', async () => {
    const shapes = [];
    for (const outcome of ['disputed', 'not_listed', 'declined'] as const) {
      const { id, listed } = await ask();
      expect((await close(id, outcome)).statusCode).toBe(200);
      const { body, text } = await expectStatus(id, 'answered');
      expectNothingElse(text, id, listed);
      shapes.push({ ...body, data: { ...body.data, reference: '', receivedAt: '', updatedAt: '' } });
    }
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[2]).toEqual(shapes[0]);
  });

  it('reads an id in capitals as the same request', async () => {
    const { id } = await ask();
    expect((await status(id.toUpperCase())).json().data).toEqual((await status(id)).json().data);
  });

  it('writes no log line that holds the id (the access lines of this route are not written)', async () => {
    const { id } = await ask();
    const before = t.logLines.length;
    expect((await status(id)).statusCode).toBe(200);
    const unknown = randomUUID();
    expect((await status(unknown)).statusCode).toBe(404);
    const written = t.logLines.slice(before).join('\n');
    expect(written).not.toContain(id);
    expect(written).not.toContain(unknown);
    expect(written).not.toContain('/status');
    // The sending route still logs its requests as every route does: the quiet is this route's own.
    await ask();
    expect(t.logLines.slice(before).join('\n')).toContain(PUBLIC);
  });

  it('writes no audit row: a public read records nothing of who asked', async () => {
    const { id } = await ask();
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

  it('answers an unknown, a malformed and a closed-then-deleted request’s id with the same 404 as a random id', async () => {
    const random = await status(randomUUID());
    expect(random.statusCode).toBe(404);
    const notFound = withoutRequestId(random);
    expect(notFound).toEqual({ success: false, message: 'Review request not found', data: { code: 'NOT_FOUND' } });

    const real = (await ask()).id;
    // Closed, then deleted by the retention job once REDFLAG_REVIEW_CLOSED_DAYS (365) have passed.
    const deleted = (await ask()).id;
    const waiting = (await ask()).id;
    expect((await close(deleted, 'not_listed')).statusCode).toBe(200);
    await expectStatus(deleted, 'answered');
    clock.advanceDays(366);
    try {
      expect((await t.app.jobs.runNow('review-requests.retention')).items).toBeGreaterThanOrEqual(1);
    } finally {
      clock.reset();
    }
    // A request still waiting is never deleted (decision 0123): its page still answers.
    await expectStatus(waiting, 'waiting');

    await expectEachNotFound(idsThatAreNot(real, deleted), status, random);
  });

  it('answers a NUL or an over-long id as every route does, the same whether or not the request exists', async () => {
    const real = (await ask()).id;
    const random = randomUUID();
    for (const [suffix, statusCode] of [
      ['%00', 400],
      ['x'.repeat(10 * 1024), 414],
    ] as const) {
      const known = await status(`${real}${suffix}`);
      const unknown = await status(`${random}${suffix}`);
      expect(known.statusCode).toBe(statusCode);
      expect(unknown.statusCode).toBe(statusCode);
      expect(withoutRequestId(known)).toEqual(withoutRequestId(unknown));
    }
  });

  it('limits each client address to 60 reads a minute, not-found answers included', async () => {
    const { id } = await ask();
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
    // Another address is counted on its own; so is the public report's status route at the same address.
    expect((await status(id, '203.0.113.78')).statusCode).toBe(200);
    const otherRoute = await t.app.inject({
      method: 'GET',
      url: `/api/v1/public/reports/${randomUUID()}/status`,
      remoteAddress: address,
    });
    expect(otherRoute.statusCode).toBe(404);
  });

  it('is documented: public, its four fields described, no outcome, 404 and 429 listed', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/api/v1/public/review-requests/{id}/status'].get;
    expect(operation.security).toEqual([]);
    expect(operation.operationId).toBe('getPublicReviewRequestsByIdStatus');
    expect(operation.description).toContain('Never the outcome');
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '404', '429']));
    const data = operation.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(data.properties).sort()).toEqual(['receivedAt', 'reference', 'status', 'updatedAt']);
    expect(data.additionalProperties).toBe(false);
    expect(data.properties.status.enum).toEqual(['waiting', 'answered']);
    for (const field of Object.values<{ description?: string }>(data.properties)) expect(field.description).toBeTruthy();
  });
});
