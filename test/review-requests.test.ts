import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const PUBLIC = '/api/v1/public/review-requests';
const ADMIN = '/api/v1/admin/review-requests';
const STATEMENT =
  'This is my own salary account. I have never sent or received money from anyone I do not know, and my bank can confirm it.';

let t: TestApp;
let operator: Awaited<ReturnType<typeof createOperator>>;
let company: Awaited<ReturnType<typeof createCompany>>;
let counter = 0;
const phone = () => `0803${String(process.pid % 1000).padStart(3, '0')}${String(++counter).padStart(4, '0')}`;

beforeAll(async () => {
  t = await buildTestApp();
  operator = await createOperator(t);
  company = await createCompany(t);
});
afterAll(() => t.close());

const ask = (payload: object) => t.app.inject({ method: 'POST', url: PUBLIC, payload });
const asOperator = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: key(operator.apiKey), ...(payload ? { payload } : {}) });
const request = (listed: string, overrides: object = {}) => ({
  name: '  Adaeze   Okafor ',
  email: 'Adaeze.Okafor@Example.com',
  identifiers: [{ label: 'phone', value: listed }],
  statement: STATEMENT,
  ...overrides,
});

describe('the person wrongly listed asks for a review', () => {
  it('answers alike whether or not anything is listed: it is not a public search', async () => {
    const listed = phone();
    await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: listed }] });
    const onList = await ask(request(listed));
    const offList = await ask(request(phone()));
    expect([onList.statusCode, offList.statusCode]).toEqual([201, 201]);
    const shape = (body: { data: { id: string; reference: string } }) => ({
      ...body,
      data: { ...body.data, id: '', reference: '' },
    });
    expect(shape(onList.json())).toEqual(shape(offList.json()));
    const { id, reference } = onList.json().data;
    expect(reference).toBe(`${id.slice(0, 4)}-${id.slice(4, 8)}`.toUpperCase());
    expect(onList.json().message).toBe(
      'Request received; the operators will check the registry and answer you at the contact you gave',
    );
    // Waiting requests are listed oldest first: the longest wait is answered first.
    const waiting = (await asOperator('GET', `${ADMIN}?status=open&limit=100`)).json().data.data.map((r: { id: string }) => r.id);
    expect(waiting.indexOf(id)).toBeGreaterThanOrEqual(0);
    expect(waiting.indexOf(id)).toBeLessThan(waiting.indexOf(offList.json().data.id));
  });

  it('stores nothing of it in clear', async () => {
    const listed = phone();
    const { id } = (await ask(request(listed))).json().data;
    const row = await t.database.db.selectFrom('review_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const text = JSON.stringify(row);
    for (const secret of [listed.slice(-7), 'Adaeze', 'okafor@', 'salary account']) expect(text).not.toContain(secret);
    expect(row.labels).toEqual(['phone']);
  });

  it('names each field that is wrong, in one answer', async () => {
    const res = await ask({
      name: ' ',
      identifiers: [{ label: 'phone', value: '12' }],
      statement: 'Too short.',
    });
    expect(res.statusCode).toBe(400);
    const fields = res.json().data.errors.map((e: { field: string }) => e.field);
    expect(fields).toContain('name');
    const again = await ask({ name: 'Ada', identifiers: [{ label: 'phone', value: '12' }], statement: 'Too short.' });
    expect(again.json().data.errors).toEqual([
      { field: 'email', message: 'give an e-mail address or a phone number, so the operators can answer you' },
      { field: 'identifiers/0/value', message: expect.any(String) },
      { field: 'statement', message: expect.stringContaining('50 to 2,000 characters') },
    ]);
    expect(JSON.stringify(again.json())).not.toContain('"12"');
    const badContact = await ask(request(phone(), { email: undefined, phone: 'call me' }));
    expect(badContact.json().data.errors).toEqual([{ field: 'phone', message: expect.any(String) }]);
  });

  it('lets the operators list, read (audited) and close a request, once; others see nothing', async () => {
    const listed = phone();
    const { id, reference } = (await ask(request(listed, { phone: '+234 803 000 1111' }))).json().data;
    const list = await asOperator('GET', `${ADMIN}?status=open&reference=${reference.toLowerCase()}`);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.data).toEqual([
      expect.objectContaining({ id, reference, status: 'open', labels: ['phone'], outcome: null, closedAt: null }),
    ]);
    expect(list.body).not.toContain('Adaeze');

    const read = await asOperator('GET', `${ADMIN}/${id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data.request).toMatchObject({
      id,
      name: 'Adaeze Okafor',
      email: 'adaeze.okafor@example.com',
      phone: '+2348030001111',
      identifiers: [{ label: 'phone', value: `+234${listed.slice(1)}` }],
      statement: STATEMENT,
    });
    const audited = await t.database.db
      .selectFrom('audit_events')
      .select(['action', 'operator_id', 'key_id'])
      .where('subject_id', '=', id)
      .execute();
    expect(audited).toEqual([{ action: 'review_read', operator_id: operator.operatorId, key_id: operator.keyId }]);

    const close = (payload: object) => asOperator('POST', `${ADMIN}/${id}/close`, payload);
    expect((await close({ outcome: 'disputed', note: 'short' })).statusCode).toBe(400);
    const closed = await close({ outcome: 'disputed', note: 'Disputed the one member report found; told her by e-mail.' });
    expect(closed.statusCode).toBe(200);
    expect(closed.json().data.request).toMatchObject({ status: 'closed', outcome: 'disputed', closedAt: expect.any(String) });
    expect((await close({ outcome: 'declined', note: 'Changed my mind about it.' })).statusCode).toBe(409);
    // The note names the person too: sealed, and read back only in the audited read.
    const row = await t.database.db.selectFrom('review_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('told her');
    expect((await asOperator('GET', `${ADMIN}/${id}`)).json().data.request.outcomeNote).toBe(
      'Disputed the one member report found; told her by e-mail.',
    );
    expect((await asOperator('GET', `${ADMIN}?status=closed`)).body).not.toContain('told her');

    // A member company has no part in it; an unknown id is a 404.
    const asCompany = await t.app.inject({ url: `${ADMIN}/${id}`, headers: key(company.apiKey) });
    expect(asCompany.statusCode).toBe(403);
    expect((await asOperator('GET', `${ADMIN}/3f0c2a1e-8b7d-4c5e-9a10-2b3c4d5e6f70`)).statusCode).toBe(404);
    expect((await asOperator('GET', `${ADMIN}/not-an-id`)).statusCode).toBe(404);
  });
});
