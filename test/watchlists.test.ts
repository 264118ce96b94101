import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digits, nuban } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { uniquePhone } from './helpers/public-reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const PATH = '/api/v1/external/watchlist';

describe('watchlists', () => {
  let t: TestApp;
  let company: Awaited<ReturnType<typeof createCompany>>;
  let other: Awaited<ReturnType<typeof createCompany>>;

  beforeAll(async () => {
    t = await buildTestApp({ config: { webhookPollMs: 0, jobTickSeconds: 0 } });
    company = await createCompany(t);
    other = await createCompany(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const add = (apiKey: string, items: unknown[]) =>
    t.app.inject({ method: 'POST', url: PATH, headers: key(apiKey), payload: { items } });

  it('answers each item in order with an id or an error; a bad item never rejects the others', async () => {
    const phone = uniquePhone();
    const bvn = `22${digits(9)}`;
    const account = `${nuban('058')}_guaranty-trust-bank`;
    await add(company.apiKey, [{ label: 'bvn', value: bvn }]);
    const res = await add(company.apiKey, [
      { label: 'phone', value: phone, ref: 'cust-1' },
      { label: 'bvn', value: '123' },
      { label: 'colour', value: 'red' },
      { label: 'phone', value: `+234${phone.slice(1)}` },
      { label: 'bvn', value: bvn },
      { label: 'account', value: account },
    ]);
    expect(res.statusCode).toBe(200);
    const results = res.json().data.results;
    expect(results).toHaveLength(6);
    expect(results[0].id).toMatch(/^[0-9a-f-]{36}$/);
    // Each error names its item's field, and its message reads on its own ("BVN must be 11 digits").
    expect(results[1].error).toEqual({
      code: 'VALIDATION_FAILED',
      field: 'items/1/value',
      message: expect.stringMatching(/^BVN /),
    });
    expect(results[2].error).toEqual({
      code: 'VALIDATION_FAILED',
      field: 'items/2/label',
      message: expect.stringContaining('phone'),
    });
    expect(results[3].error).toEqual({ code: 'DUPLICATE', field: 'items/3/value', message: 'is the same identifier as items/0' });
    expect(results[4].error).toEqual({ code: 'DUPLICATE', field: 'items/4/value', message: 'is already on the watchlist' });
    expect(results[5].id).toBeDefined();
    // The error never echoes the value.
    expect(JSON.stringify(results)).not.toContain(bvn);

    const list = await t.app.inject({ method: 'GET', url: `${PATH}?label=phone`, headers: key(company.apiKey) });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.data).toEqual([
      expect.objectContaining({
        id: results[0].id,
        label: 'phone',
        ref: 'cust-1',
        value: expect.stringContaining(phone.slice(1)),
      }),
    ]);
    const count = await t.app.inject({ method: 'GET', url: `${PATH}/count`, headers: key(company.apiKey) });
    expect(count.json().data.count).toBe(3);
    const theirs = await t.app.inject({ method: 'GET', url: `${PATH}/count`, headers: key(other.apiKey) });
    expect(theirs.json().data.count).toBe(0);
  });

  it("removes an entry; another company's entry is the 404 of a random id", async () => {
    const [entry] = (await add(company.apiKey, [{ label: 'phone', value: uniquePhone() }])).json().data.results;
    for (const id of [entry.id, '00000000-0000-4000-8000-00000000000f', 'nope']) {
      const res = await t.app.inject({ method: 'DELETE', url: `${PATH}/${id}`, headers: key(other.apiKey) });
      expect(res.statusCode).toBe(404);
      expect(res.json().data.code).toBe('NOT_FOUND');
    }
    expect((await t.app.inject({ method: 'DELETE', url: `${PATH}/${entry.id}`, headers: key(company.apiKey) })).statusCode).toBe(
      200,
    );
    expect((await t.app.inject({ method: 'DELETE', url: `${PATH}/${entry.id}`, headers: key(company.apiKey) })).statusCode).toBe(
      404,
    );
  });

  it('takes 1 to 1,000 items a request and pages the list', async () => {
    const empty = await add(company.apiKey, []);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().data.errors[0].field).toBe('items');
    const tooMany = await add(
      company.apiKey,
      Array.from({ length: 1001 }, () => ({ label: 'phone', value: uniquePhone() })),
    );
    expect(tooMany.statusCode).toBe(400);
    const many = await add(
      other.apiKey,
      Array.from({ length: 1000 }, () => ({ label: 'phone', value: uniquePhone() })),
    );
    expect(many.json().data.results.filter((r: { id?: string }) => r.id)).toHaveLength(1000);
    const page = await t.app.inject({ method: 'GET', url: `${PATH}?page=3&limit=100`, headers: key(other.apiKey) });
    expect(page.json().data.meta).toEqual({ total: 1000, page: 3, limit: 100 });
    expect(page.json().data.data).toHaveLength(100);
  });
  it('lists an entry whose value does not open marked unreadable, serves the rest, and lets it be removed', async () => {
    const owner = await createCompany(t);
    const [phone, email] = [uniquePhone(), `watched.${digits(6)}@example.com`];
    const [first, second] = (
      await add(owner.apiKey, [
        { label: 'phone', value: phone, ref: 'Customer 12' },
        { label: 'email', value: email, ref: 'Customer 13' },
      ])
    ).json().data.results;
    // The second entry's tokens moved onto the first: authentic, but sealed to another row.
    await sql`update watchlist_entries set
        value_token = (select value_token from watchlist_entries where id = ${second.id}::uuid),
        ref_token = (select ref_token from watchlist_entries where id = ${second.id}::uuid)
      where id = ${first.id}::uuid`.execute(t.database.db);
    const token = (
      await t.database.db
        .selectFrom('watchlist_entries')
        .select('value_token')
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow()
    ).value_token;

    const res = await t.app.inject({ method: 'GET', url: PATH, headers: key(owner.apiKey) });
    expect(res.statusCode).toBe(200);
    const byId = new Map(res.json().data.data.map((e: { id: string }) => [e.id, e]));
    expect(byId.get(first.id)).toEqual({
      id: first.id,
      label: 'phone',
      value: token,
      ref: null,
      unreadable: true,
      createdAt: expect.any(String),
    });
    expect(byId.get(second.id)).toEqual({
      id: second.id,
      label: 'email',
      value: email,
      ref: 'Customer 13',
      createdAt: expect.any(String),
    });
    const logged = t.logLines.map((line) => JSON.parse(line)).filter((entry) => entry.err?.where?.rowId === first.id);
    expect(logged.map((entry) => entry.err.where.label).sort()).toEqual(['phone', 'watchlist.ref']);
    expect(JSON.stringify(logged)).not.toContain(phone.slice(1));

    const removed = await t.app.inject({ method: 'DELETE', url: `${PATH}/${first.id}`, headers: key(owner.apiKey) });
    expect(removed.statusCode).toBe(200);
  });
});
