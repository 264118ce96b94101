import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digits, localPhone } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let a: Awaited<ReturnType<typeof createCompany>>;
let b: Awaited<ReturnType<typeof createCompany>>;

beforeAll(async () => {
  t = await buildTestApp();
  a = await createCompany(t, { businessName: 'Alpha Microfinance Bank' });
  b = await createCompany(t, { businessName: 'Beta Fintech' });
});
afterAll(() => t.close());

const SUBMISSIONS = '/api/v1/external/reports/submissions';
const get = (url: string, apiKey = a.apiKey) => t.app.inject({ method: 'GET', url, headers: key(apiKey) });
const send = (method: 'POST' | 'PATCH', url: string, payload?: object, apiKey = a.apiKey) =>
  t.app.inject({ method, url, headers: key(apiKey), ...(payload ? { payload } : {}) });

describe('GET submissions (list)', () => {
  let company: Awaited<ReturnType<typeof createCompany>>;
  beforeAll(async () => {
    company = await createCompany(t);
    for (let i = 0; i < 5; i++)
      await createReport(t, company.apiKey, { fraudType: i % 2 ? 'theft' : 'hacker', userId: `officer-${i}` });
    await createReport(t, company.apiKey, { status: 'draft' });
  });

  it('pages through the own submissions, newest first, with data.data and data.meta', async () => {
    const res = await get(`${SUBMISSIONS}?page=1&limit=4`, company.apiKey);
    expect(res.statusCode).toBe(200);
    const { data, meta } = res.json().data;
    expect(meta).toEqual({ total: 6, page: 1, limit: 4 });
    expect(data).toHaveLength(4);
    const created = data.map((r: { createdAt: string }) => r.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    for (const item of data) {
      // Added to the document's shape: a draft's listingStatus says "listed", so the list says which are drafts.
      expect(['draft', 'published']).toContain(item.status);
      expect(item.companyId).toBe(company.companyId);
      expect(item.reportingCompany).toEqual({ businessName: expect.any(String), id: company.companyId });
      for (const identifier of item.identifiers) {
        expect(Object.keys(identifier).sort()).toEqual(['label', 'value']);
        expect(identifier.value).toMatch(/^v2\./);
      }
    }
    const second = (await get(`${SUBMISSIONS}?page=2&limit=4`, company.apiKey)).json().data;
    expect(second.data).toHaveLength(2);
    const past = (await get(`${SUBMISSIONS}?page=9&limit=4`, company.apiKey)).json().data;
    expect(past).toEqual({ data: [], meta: { total: 6, page: 9, limit: 4 } });
  });

  it('defaults to page 1 and 20 per page, and shows the own userId', async () => {
    const { data, meta } = (await get(SUBMISSIONS, company.apiKey)).json().data;
    expect(meta).toEqual({ total: 6, page: 1, limit: 20 });
    expect(data.filter((r: { userId: string | null }) => r.userId?.startsWith('officer-'))).toHaveLength(5);
  });

  it('filters by fraud type, status, listing status and creation dates', async () => {
    const count = async (query: string) => (await get(`${SUBMISSIONS}?${query}`, company.apiKey)).json().data.meta.total;
    expect(await count('fraudType=theft')).toBe(2);
    expect(await count('status=draft')).toBe(1);
    expect(await count('status=published&fraudType=hacker')).toBe(3);
    expect(await count('listingStatus=exited')).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(await count(`from=${today}&to=${today}`)).toBe(6);
    expect(await count(`to=2000-01-01`)).toBe(0);
    expect(await count(`from=${new Date(Date.now() + 60_000).toISOString()}`)).toBe(0);
  });

  it('keeps its totals right through edits and transitions (kept counts agree with counting rows)', async () => {
    const c = await createCompany(t);
    const draft = await createReport(t, c.apiKey, { status: 'draft', fraudType: 'theft' });
    const exited = await createReport(t, c.apiKey, { fraudType: 'hacker' });
    const relisted = await createReport(t, c.apiKey, { fraudType: 'hacker' });
    await send('PATCH', `${SUBMISSIONS}/${draft.id}`, { fraudType: 'romance_fraud' }, c.apiKey);
    await send('POST', `${SUBMISSIONS}/${draft.id}/publish`, undefined, c.apiKey);
    const reason = { reason: 'Cleared after the customer repaid.' };
    await send('POST', `${SUBMISSIONS}/${exited.id}/exit`, reason, c.apiKey);
    await send('POST', `${SUBMISSIONS}/${relisted.id}/exit`, reason, c.apiKey);
    await send('POST', `${SUBMISSIONS}/${relisted.id}/relist`, undefined, c.apiKey);
    const total = async (query: string) => (await get(`${SUBMISSIONS}?${query}`, c.apiKey)).json().data.meta.total;
    for (const query of [
      '',
      'status=published',
      'status=draft',
      'listingStatus=exited',
      'fraudType=hacker',
      'fraudType=romance_fraud',
      'fraudType=theft',
    ]) {
      // A date range makes the list count the rows themselves.
      expect(await total(query), query).toBe(await total(`${query}&from=2000-01-01`));
    }
    expect(await total('')).toBe(3);
    expect(await total('listingStatus=exited')).toBe(1);
    expect(await total('fraudType=romance_fraud&status=published')).toBe(1);
    expect(await total('fraudType=theft')).toBe(0);
  });

  it('keeps its totals when a maintenance session with another search path deletes a report', async () => {
    const c = await createCompany(t);
    const doomed = await createReport(t, c.apiKey);
    await createReport(t, c.apiKey);
    const reports = sql`${sql.id(t.database.schema ?? 'public')}.reports`;
    await t.database.db.transaction().execute(async (trx) => {
      await sql`set local search_path = pg_catalog`.execute(trx);
      await sql`delete from ${reports} where id = ${doomed.id}`.execute(trx);
    });
    const total = async (query: string) => (await get(`${SUBMISSIONS}?${query}`, c.apiKey)).json().data.meta.total;
    expect(await total('')).toBe(1);
    expect(await total('from=2000-01-01')).toBe(1);
  });

  it('refuses a limit above 100, a page or limit below 1, and a bad date, naming the parameter', async () => {
    for (const [query, field] of [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['from=yesterday', 'from'],
      ['to=2026-13-45', 'to'],
      ['status=open', 'status'],
      ['page=999999999999999999999', 'page'],
      ['from=2026-02-30', 'from'],
    ]) {
      const res = await get(`${SUBMISSIONS}?${query}`, company.apiKey);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().data.errors[0].field).toBe(field);
    }
    expect((await get(`${SUBMISSIONS}?limit=100&unknown=1`, company.apiKey)).statusCode).toBe(200);
  });

  it("never lists another company's reports", async () => {
    const { data } = (await get(`${SUBMISSIONS}?limit=100`, b.apiKey)).json().data;
    expect(data.every((r: { companyId: string }) => r.companyId === b.companyId)).toBe(true);
  });
});

describe('GET submission and decode', () => {
  it('reads one submission with status and encrypted identifier values', async () => {
    const created = await createReport(t, a.apiKey, { userId: 'analyst-7' });
    const res = await get(`${SUBMISSIONS}/${created.id}`);
    expect(res.statusCode).toBe(200);
    const { report } = res.json().data;
    expect(report).toMatchObject({
      id: created.id,
      status: 'published',
      listingStatus: 'listed',
      userId: 'analyst-7',
      companyId: a.companyId,
    });
    expect(report.reportingCompany).toEqual({ businessName: 'Alpha Microfinance Bank', id: a.companyId });
    expect(report.identifiers).toHaveLength(2);
    for (const identifier of report.identifiers) {
      expect(Object.keys(identifier).sort()).toEqual(['id', 'label', 'value']);
      expect(identifier.value).toMatch(/^v2\.k\d+\./);
    }
  });

  it('decodes the own submission to the clear normalised values, and audits it', async () => {
    const phone = localPhone();
    const created = await createReport(t, a.apiKey, {
      identifiers: [
        { label: 'phone', value: phone },
        { label: 'bvn', value: `22-${digits(9)}` },
      ],
    });
    const res = await get(`${SUBMISSIONS}/${created.id}/decode`);
    expect(res.statusCode).toBe(200);
    const { report } = res.json().data;
    expect(report.status).toBe('published');
    expect(report.identifiers.map((i: { label: string; value: string }) => ({ label: i.label, value: i.value }))).toEqual(
      created.identifiers,
    );
    expect(report.identifiers[0].id).toMatch(/^[0-9a-f-]{36}$/);
    const audit = await t.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('report_id', '=', created.id)
      .where('action', '=', 'decode')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ company_id: a.companyId, key_id: a.keyId });
  });
});

describe('tenant isolation', () => {
  it("answers another company's id exactly as an unknown or malformed id, on every route with an id", async () => {
    const own = await createReport(t, a.apiKey, { status: 'draft' });
    const routes: Array<[string, string, object | undefined]> = [
      ['GET', '', undefined],
      ['GET', '/decode', undefined],
      ['PATCH', '', { fraudType: 'theft' }],
      ['POST', '/publish', undefined],
      ['POST', '/exit', { reason: 'Customer repaid in full and was cleared.' }],
      ['POST', '/relist', undefined],
    ];
    for (const [method, suffix, payload] of routes) {
      const answers = [];
      for (const id of [own.id, randomUUID(), 'not-a-uuid', `${own.id}x`]) {
        const res = await t.app.inject({
          method: method as 'GET',
          url: `${SUBMISSIONS}/${id}${suffix}`,
          headers: key(b.apiKey),
          ...(payload ? { payload } : {}),
        });
        const body = res.json();
        answers.push({ status: res.statusCode, body: { ...body, data: { ...body.data, requestId: undefined } } });
      }
      expect(answers[0], `${method} ${suffix}`).toEqual({
        status: 404,
        body: { success: false, message: 'Report not found', data: { code: 'NOT_FOUND', requestId: undefined } },
      });
      for (const other of answers.slice(1)) expect(other).toEqual(answers[0]);
    }
    // And company A's draft is untouched.
    expect((await get(`${SUBMISSIONS}/${own.id}`)).json().data.report).toMatchObject({
      status: 'draft',
      fraudType: 'money_mule',
    });
  });
});

describe('drafts', () => {
  it('edits a draft, publishes it once, and never edits a published report', async () => {
    const oldPhone = localPhone();
    const newPhone = localPhone();
    const draft = await createReport(t, a.apiKey, { status: 'draft', identifiers: [{ label: 'phone', value: oldPhone }] });
    expect((await search(t, b.apiKey, 'phone', oldPhone)).json().data.reports).toEqual([]);
    // An edit that changes nothing says so in words.
    const empty = await send('PATCH', `${SUBMISSIONS}/${draft.id}`, {});
    expect(empty.json().data.errors).toEqual([{ field: 'body', message: 'must change at least one field' }]);

    const edit = await send('PATCH', `${SUBMISSIONS}/${draft.id}`, {
      fraudType: 'identity_theft',
      identifiers: [
        { label: 'phone', value: newPhone },
        { label: 'email', value: 'draft.edit@example.com' },
      ],
      showUploaderInfo: true,
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.json().data.report).toMatchObject({ status: 'draft', fraudType: 'identity_theft', showUploaderInfo: true });
    expect(edit.json().data.report.identifiers).toHaveLength(2);

    const published = await send('POST', `${SUBMISSIONS}/${draft.id}/publish`);
    expect(published.statusCode).toBe(200);
    expect(published.json().data.report.status).toBe('published');
    expect((await search(t, b.apiKey, 'phone', newPhone)).json().data.reports.map((r: { id: string }) => r.id)).toEqual([
      draft.id,
    ]);
    expect((await search(t, b.apiKey, 'phone', oldPhone)).json().data.reports).toEqual([]);

    const again = await send('POST', `${SUBMISSIONS}/${draft.id}/publish`);
    expect(again.statusCode).toBe(409);
    expect(again.json().data.code).toBe('INVALID_STATE');
    const editPublished = await send('PATCH', `${SUBMISSIONS}/${draft.id}`, { fraudType: 'theft' });
    expect(editPublished.statusCode).toBe(409);
  });

  it('edits a draft addressed by its id in capitals, and it still decodes', async () => {
    const draft = await createReport(t, a.apiKey, { status: 'draft' });
    const edit = await send('PATCH', `${SUBMISSIONS}/${draft.id.toUpperCase()}`, {
      identifiers: [{ label: 'nin', value: digits(11) }],
    });
    expect(edit.statusCode).toBe(200);
    const decoded = await get(`${SUBMISSIONS}/${draft.id}/decode`);
    expect(decoded.statusCode).toBe(200);
    expect(decoded.json().data.report.identifiers[0].label).toBe('nin');
    const actions = await t.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('report_id', '=', draft.id)
      .orderBy('id')
      .execute();
    expect(actions.map((r) => r.action)).toEqual(['create', 'edit', 'decode']);
  });

  it('validates a draft edit like a create', async () => {
    const draft = await createReport(t, a.apiKey, { status: 'draft' });
    const empty = await send('PATCH', `${SUBMISSIONS}/${draft.id}`, {});
    expect(empty.statusCode).toBe(400);
    const bad = await send('PATCH', `${SUBMISSIONS}/${draft.id}`, {
      fraudReason: 'too short',
      identifiers: [{ label: 'bvn', value: '1' }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors).toEqual([
      { field: 'fraudReason', message: 'must be 50 to 2,000 characters, not counting spaces at either end (it has 9)' },
      { field: 'identifiers/0/value', message: expect.stringContaining('BVN') },
    ]);
    const status = await send('PATCH', `${SUBMISSIONS}/${draft.id}`, { status: 'published' });
    expect(status.json().data.errors).toEqual([{ field: 'status', message: 'is not an accepted field' }]);
    const badIdentifier = await send('PATCH', `${SUBMISSIONS}/${draft.id}`, { identifiers: [{ label: 'bvn', value: '1' }] });
    expect(badIdentifier.json().data.errors).toEqual([{ field: 'identifiers/0/value', message: expect.stringContaining('BVN') }]);
  });
});

describe('leaving the list', () => {
  it('exits with a reason, disappears from search, relists and reappears; nonsense transitions are 409', async () => {
    const phone = localPhone();
    const report = await createReport(t, a.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const found = async () => (await search(t, b.apiKey, 'phone', phone)).json().data.reports.length;
    expect(await found()).toBe(1);

    const short = await send('POST', `${SUBMISSIONS}/${report.id}/exit`, { reason: 'too short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().data.errors[0].field).toBe('reason');

    const exit = await send('POST', `${SUBMISSIONS}/${report.id}/exit`, {
      reason: 'Account holder cleared after investigation.',
    });
    expect(exit.statusCode).toBe(200);
    const exited = exit.json().data.report;
    expect(exited).toMatchObject({ listingStatus: 'exited', exitListReason: 'Account holder cleared after investigation.' });
    expect(Date.now() - new Date(exited.exitedListAt).getTime()).toBeLessThan(60_000);
    expect(await found()).toBe(0);
    expect(
      (await send('POST', `${SUBMISSIONS}/${report.id}/exit`, { reason: 'Account holder cleared after investigation.' }))
        .statusCode,
    ).toBe(409);

    const relist = await send('POST', `${SUBMISSIONS}/${report.id}/relist`);
    expect(relist.statusCode).toBe(200);
    expect(relist.json().data.report).toMatchObject({ listingStatus: 'listed', exitedListAt: null, exitListReason: null });
    expect(await found()).toBe(1);
    expect((await send('POST', `${SUBMISSIONS}/${report.id}/relist`)).statusCode).toBe(409);

    const actions = await t.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('report_id', '=', report.id)
      .orderBy('id')
      .execute();
    expect(actions.map((r) => r.action)).toEqual(['create', 'exit', 'relist']);
  });

  it('does not exit or relist a draft', async () => {
    const draft = await createReport(t, a.apiKey, { status: 'draft' });
    expect((await send('POST', `${SUBMISSIONS}/${draft.id}/exit`, { reason: 'Not a fraud case after all.' })).statusCode).toBe(
      409,
    );
    expect((await send('POST', `${SUBMISSIONS}/${draft.id}/relist`)).statusCode).toBe(409);
  });

  it("lets an operator exit and relist any company's report, and no other company", async () => {
    const report = await createReport(t, a.apiKey);
    const operator = await createOperator(t);
    const exit = await send(
      'POST',
      `${SUBMISSIONS}/${report.id}/exit`,
      { reason: 'Court order received by the registry.' },
      operator.apiKey,
    );
    expect(exit.statusCode).toBe(200);
    expect(exit.json().data.report).toMatchObject({ listingStatus: 'exited', exitedBy: 'operators' });
    const audit = await t.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('report_id', '=', report.id)
      .where('action', '=', 'exit')
      .executeTakeFirstOrThrow();
    // The decision is the operator's, and it is in the owning company's trail.
    expect(audit).toMatchObject({ operator_id: operator.operatorId, company_id: a.companyId, key_id: operator.keyId });
    expect((await send('POST', `${SUBMISSIONS}/${report.id}/relist`, undefined, b.apiKey)).statusCode).toBe(404);
    // The operators' takedown is not the owner's to undo.
    const undone = await send('POST', `${SUBMISSIONS}/${report.id}/relist`);
    expect(undone.statusCode).toBe(409);
    expect(undone.json().message).toContain('taken off the list by the operators, so only the operators can put it back');
    expect((await send('POST', `${SUBMISSIONS}/${report.id}/relist`, undefined, operator.apiKey)).statusCode).toBe(200);
    // Put back by the operators, it is the owner's again: its own exit it may undo.
    const ownExit = await send('POST', `${SUBMISSIONS}/${report.id}/exit`, { reason: 'Customer repaid in full today.' });
    expect(ownExit.statusCode).toBe(200);
    expect(ownExit.json().data.report.exitedBy).toBe('member');
    const listed = await t.app.inject({ url: `${SUBMISSIONS}?limit=100`, headers: key(a.apiKey) });
    expect(listed.json().data.data.find((r: { id: string }) => r.id === report.id)?.exitedBy).toBe('member');
    expect((await send('POST', `${SUBMISSIONS}/${report.id}/relist`)).statusCode).toBe(200);
  });
});

describe('routes that need a company key', () => {
  it('refuses an operator key on the list, get and decode', async () => {
    const operator = await createOperator(t);
    expect((await get(SUBMISSIONS, operator.apiKey)).statusCode).toBe(403);
    expect((await get(`${SUBMISSIONS}/${randomUUID()}/decode`, operator.apiKey)).statusCode).toBe(403);
  });
});
