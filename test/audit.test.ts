import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digits } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ config: { webhookAllowPrivate: true } });
});
afterAll(() => t.close());

const audit = (apiKey: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/v1/external/audit${query}`, headers: key(apiKey) });

describe('GET /api/v1/external/audit', () => {
  it("pages through the company's own trail, newest first, without clear values", async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const bvn = `22${digits(9)}`;
    const report = await createReport(t, a.apiKey, { identifiers: [{ label: 'bvn', value: bvn }] });
    await search(t, a.apiKey, 'bvn', bvn);
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${report.id}/decode`,
      headers: key(a.apiKey),
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/reports/submissions/${report.id}/exit`,
      headers: key(a.apiKey),
      payload: { reason: 'Cleared by the compliance team.' },
    });
    await search(t, b.apiKey, 'bvn', bvn);

    const res = await audit(a.apiKey);
    expect(res.statusCode).toBe(200);
    const { data, meta } = res.json().data;
    expect(meta).toEqual({ total: 4, page: 1, limit: 20 });
    expect(data.map((e: { action: string }) => e.action)).toEqual(['exit', 'decode', 'search', 'create']);
    const searchEvent = data[2];
    expect(searchEvent).toMatchObject({ keyId: a.keyId, label: 'bvn', resultCount: 1, reportId: null });
    expect(searchEvent.blindIndex).toMatch(/^[0-9a-f]{64}$/);
    expect(searchEvent.requestId).toBeTruthy();
    expect(data[0]).toMatchObject({ action: 'exit', reportId: report.id, label: null, blindIndex: null });
    expect(res.body).not.toContain(bvn);

    // The other company's search of the same value is in its own trail only, under a pseudonym of
    // its own: comparing two members' exports links nothing.
    const theirs = (await audit(b.apiKey)).json().data;
    expect(theirs.meta.total).toBe(1);
    expect(theirs.data[0].blindIndex).toMatch(/^[0-9a-f]{64}$/);
    expect(theirs.data[0].blindIndex).not.toBe(searchEvent.blindIndex);
    // The stored row keeps the blind index itself; the API never shows it.
    const stored = await t.database.db
      .selectFrom('audit_events')
      .select('blind_index')
      .where('request_id', '=', searchEvent.requestId)
      .executeTakeFirstOrThrow();
    expect(res.body).not.toContain(Buffer.from(stored.blind_index as Buffer).toString('hex'));

    const page = (await audit(a.apiKey, '?limit=1&page=2&action=decode')).json().data;
    expect(page).toEqual({ data: [], meta: { total: 1, page: 2, limit: 1 } });
    expect((await audit(a.apiKey, '?action=search')).json().data.data).toHaveLength(1);
    // One action left out (the desk leaves out a screening's row per customer unless asked).
    const withoutSearches = (await audit(a.apiKey, '?excludeAction=search')).json().data;
    expect(withoutSearches.data.map((e: { action: string }) => e.action)).toEqual(['exit', 'decode', 'create']);
    expect(withoutSearches.meta.total).toBe(3);
  });

  it("names another member only as such: a dispute's step in both trails never gives the other company's ids", async () => {
    const owner = await createCompany(t);
    const disputer = await createCompany(t);
    const phone = `0803${digits(7)}`;
    const report = await createReport(t, owner.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await search(t, disputer.apiKey, 'phone', phone);
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/disputes',
      // The disputer's own correlation id: theirs, not shown to the other company.
      headers: { ...key(disputer.apiKey), 'x-request-id': 'disputer-case-4711' },
      payload: {
        reportId: report.id,
        reason: 'Our customer proved their identity in branch; the account was opened by them and never used for fraud.',
      },
    });
    expect(opened.statusCode).toBe(201);
    const res = await audit(owner.apiKey);
    const events = res.json().data.data as Array<{
      action: string;
      actor: string;
      keyId: string | null;
      userId: string | null;
      requestId: string | null;
    }>;
    expect(events.find((e) => e.action === 'dispute_open')).toMatchObject({
      actor: 'another_member',
      keyId: null,
      userId: null,
      requestId: null,
    });
    expect(events.find((e) => e.action === 'create')).toMatchObject({ actor: 'company', keyId: owner.keyId, userId: null });
    expect(res.body).not.toContain(disputer.keyId);
    expect(res.body).not.toContain('disputer-case-4711');
    // The disputer's own trail names its own key.
    const theirs = (await audit(disputer.apiKey)).json().data.data as typeof events;
    expect(theirs.find((e) => e.action === 'dispute_open')).toMatchObject({ actor: 'company', keyId: disputer.keyId });
  });

  it('gives each event an id of its own trail, not the registry-wide row number that counted everyone else', async () => {
    const company = await createCompany(t);
    const other = await createCompany(t);
    await search(t, company.apiKey, 'phone', `0803${digits(7)}`);
    const first = (await audit(company.apiKey)).json().data.data[0];
    expect(first.id).toMatch(/^[0-9a-f]{32}$/);
    const row = await t.database.db
      .selectFrom('audit_events')
      .select('id')
      .where('company_id', '=', company.companyId)
      .executeTakeFirstOrThrow();
    expect(first.id).not.toBe(String(row.id));
    // Stable from one read to the next, and unrelated to the row id another company's event gets.
    expect((await audit(company.apiKey)).json().data.data[0].id).toBe(first.id);
    await search(t, other.apiKey, 'phone', `0803${digits(7)}`);
    const theirs = (await audit(other.apiKey)).json().data.data[0];
    expect(theirs.id).toMatch(/^[0-9a-f]{32}$/);
    expect(theirs.id).not.toBe(first.id);
  });

  it('shows one company the same pseudonym for every search of one value, and another value another', async () => {
    const company = await createCompany(t);
    const bvn = `22${digits(9)}`;
    await search(t, company.apiKey, 'bvn', bvn);
    await search(t, company.apiKey, 'bvn', `  ${bvn} `);
    await search(t, company.apiKey, 'bvn', `22${digits(9)}`);
    const [other, second, first] = (await audit(company.apiKey, '?action=search')).json().data.data;
    expect(second.blindIndex).toBe(first.blindIndex);
    expect(other.blindIndex).not.toBe(first.blindIndex);
  });

  it('needs a company key and a limit of at most 100', async () => {
    const operator = await createOperator(t);
    expect((await audit(operator.apiKey)).statusCode).toBe(403);
    const company = await createCompany(t);
    expect((await audit(company.apiKey, '?limit=101')).statusCode).toBe(400);
  });

  it("records the company's administrative changes, each naming what it was made to, with the change", async () => {
    const company = await createCompany(t);
    const operator = await createOperator(t);
    const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, apiKey = company.apiKey) =>
      t.app.inject({ method, url, headers: key(apiKey), ...(payload ? { payload } : {}) });
    const issued = (await send('POST', '/api/v1/external/keys', {})).json().data;
    const rotated = (await send('POST', `/api/v1/external/keys/${issued.key.id}/rotate`, { graceHours: 0 })).json().data;
    await send('POST', `/api/v1/admin/keys/${rotated.key.id}/revoke`, undefined, operator.apiKey);
    const invited = (
      await send('POST', '/api/v1/external/users', { email: `audit.${digits(6)}@bank.example`, role: 'viewer' })
    ).json().data;
    await send('PATCH', `/api/v1/external/users/${invited.userId}`, { role: 'analyst' });
    await send('DELETE', `/api/v1/external/users/${invited.userId}`);
    const hook = (
      await send('POST', '/api/v1/external/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['watchlist.match'] })
    ).json().data.webhook;
    await send('PATCH', `/api/v1/external/webhooks/${hook.id}`, { enabled: false });
    await send('DELETE', `/api/v1/external/webhooks/${hook.id}`);

    const events = (await audit(company.apiKey, '?limit=100')).json().data.data as Array<{
      action: string;
      subjectId: string | null;
      actor: string;
      keyId: string | null;
    }>;
    const changes = events
      .filter((e) => e.subjectId !== null)
      .reverse()
      .map((e) => [e.action, e.subjectId, e.actor]);
    expect(changes).toEqual([
      ['key_issue', issued.key.id, 'company'],
      ['key_rotate', issued.key.id, 'company'],
      // An operator's change to the company's key is in the company's trail, by "the operators".
      ['key_revoke', rotated.key.id, 'operators'],
      ['user_invite', invited.userId, 'company'],
      ['user_role', invited.userId, 'company'],
      ['user_remove', invited.userId, 'company'],
      ['webhook_create', hook.id, 'company'],
      ['webhook_change', hook.id, 'company'],
      ['webhook_remove', hook.id, 'company'],
    ]);
    expect(events.find((e) => e.action === 'key_issue')?.keyId).toBe(company.keyId);
    // A search names no subject.
    await search(t, company.apiKey, 'phone', `0803${digits(7)}`);
    expect((await audit(company.apiKey, '?action=search')).json().data.data[0].subjectId).toBeNull();
  });
});
