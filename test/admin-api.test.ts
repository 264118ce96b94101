import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries, createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await buildTestApp();
  admin = key((await createOperator(t)).apiKey);
});
afterAll(() => t.close());

const post = (url: string, payload?: object, headers = admin) =>
  t.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });
const get = (url: string, headers = admin) => t.app.inject({ method: 'GET', url, headers });

describe('companies over HTTP (operator key)', () => {
  it('creates a company with its first key, shown once, that works at once', async () => {
    const res = await post('/api/v1/admin/companies', { businessName: '  Acme   MFB ', rateLimitPerMinute: 1200 });
    expect(res.statusCode).toBe(201);
    const { company, key: view, apiKey } = res.json().data;
    expect(company).toEqual({
      id: expect.any(String),
      businessName: 'Acme MFB',
      status: 'active',
      rateLimitPerMinute: 1200,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(apiKey).toMatch(/^rf_[0-9A-Za-z]{36}$/);
    expect(view).toMatchObject({ role: 'company', companyId: company.id, prefix: apiKey.slice(0, 10), status: 'active' });
    const me = await get('/api/v1/auth/whoami', key(apiKey));
    expect(me.json().data).toMatchObject({ role: 'company', rateLimitPerMinute: 1200, company: { id: company.id } });
    // Listing the keys never shows the key again.
    const listed = await get(`/api/v1/admin/companies/${company.id}/keys`);
    expect(listed.body).not.toContain(apiKey);
    expect(listed.body).not.toContain(apiKey.slice(10));
  });

  it('validates the body', async () => {
    const cases: Array<[object, string]> = [
      [{}, 'businessName'],
      [{ businessName: '   ' }, 'businessName'],
      [{ businessName: 'x'.repeat(201) }, 'businessName'],
      [{ businessName: 'Ok', rateLimitPerMinute: 0 }, 'rateLimitPerMinute'],
      [{ businessName: 'Ok', rateLimitPerMinute: 1.5 }, 'rateLimitPerMinute'],
      [{ businessName: 'Ok', status: 'suspended' }, 'status'],
    ];
    for (const [payload, field] of cases) {
      const res = await post('/api/v1/admin/companies', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().data.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('refuses a second company of the same name (case and spacing aside) unless allowDuplicate', async () => {
    const first = await post('/api/v1/admin/companies', { businessName: 'Duplicate Name Bank' });
    expect(first.statusCode).toBe(201);
    const again = await post('/api/v1/admin/companies', { businessName: ' duplicate  NAME bank' });
    expect(again.statusCode).toBe(409);
    expect(again.json().data.code).toBe('COMPANY_NAME_TAKEN');
    expect(again.json().message).toContain(first.json().data.company.id);
    // Over HTTP the way out is the body's flag, not the command line's.
    expect(again.json().message).toContain('send allowDuplicate: true');
    expect(again.json().message).not.toContain('--allow-duplicate');
    // Two at once: the name's lock lets exactly one through.
    const racing = await Promise.all([1, 2].map(() => post('/api/v1/admin/companies', { businessName: 'Racing Name Bank' })));
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const allowed = await post('/api/v1/admin/companies', { businessName: 'Duplicate Name Bank', allowDuplicate: true });
    expect(allowed.statusCode).toBe(201);
    expect(allowed.json().data.company.id).not.toBe(first.json().data.company.id);
  });

  it('lists companies newest first, a page at a time', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createCompany(t, { businessName: `Paged ${i}` }));
    const first = await get('/api/v1/admin/companies?page=1&limit=2');
    expect(first.statusCode).toBe(200);
    const { data, meta } = first.json().data;
    expect(data).toHaveLength(2);
    expect(meta).toMatchObject({ page: 1, limit: 2 });
    expect(meta.total).toBeGreaterThanOrEqual(3);
    expect(data.map((c: { id: string }) => c.id)).toEqual([made[2]?.companyId, made[1]?.companyId]);
    const past = (await get(`/api/v1/admin/companies?page=${meta.total + 1}&limit=1`)).json().data;
    expect(past).toEqual({ data: [], meta: { total: meta.total, page: meta.total + 1, limit: 1 } });
    expect((await get('/api/v1/admin/companies?limit=101')).statusCode).toBe(400);
    expect((await get('/api/v1/admin/companies?status=closed')).statusCode).toBe(400);
  });

  it('suspends and activates, filters by status, and answers 404 for an unknown company', async () => {
    const { companyId } = await createCompany(t);
    const suspended = await post(`/api/v1/admin/companies/${companyId}/suspend`);
    expect(suspended.statusCode).toBe(200);
    expect(suspended.json().data.company).toMatchObject({ id: companyId, status: 'suspended' });
    const listed = (await get('/api/v1/admin/companies?status=suspended&limit=100')).json().data.data;
    expect(listed.map((c: { id: string }) => c.id)).toContain(companyId);
    expect((await post(`/api/v1/admin/companies/${companyId}/suspend`)).statusCode).toBe(200);
    const activated = await post(`/api/v1/admin/companies/${companyId}/activate`);
    expect(activated.json().data.company.status).toBe('active');
    expect((await get(`/api/v1/admin/companies/${companyId}`)).json().data.company.status).toBe('active');
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      for (const res of [await get(`/api/v1/admin/companies/${id}`), await post(`/api/v1/admin/companies/${id}/suspend`)]) {
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ message: 'Company not found', data: { code: 'NOT_FOUND' } });
      }
    }
  });
});

describe('keys over HTTP', () => {
  it('issues further keys (body optional), lists them without hash or key, and 404s an unknown company', async () => {
    const { companyId, apiKey: first } = await createCompany(t);
    const plain = await post(`/api/v1/admin/companies/${companyId}/keys`);
    expect(plain.statusCode).toBe(201);
    expect(plain.json().data.key.expiresAt).toBeNull();
    const expiring = await post(`/api/v1/admin/companies/${companyId}/keys`, { expiresInDays: 30 });
    expect(expiring.statusCode).toBe(201);
    const expiresIn = Date.parse(expiring.json().data.key.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(29.9 * 86_400_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * 86_400_000);
    expect((await post(`/api/v1/admin/companies/${companyId}/keys`, { expiresInDays: 0 })).statusCode).toBe(400);

    const list = await get(`/api/v1/admin/companies/${companyId}/keys`);
    expect(list.statusCode).toBe(200);
    const keys = list.json().data.keys;
    expect(keys).toHaveLength(3);
    for (const k of keys) {
      expect(Object.keys(k).sort()).toEqual(
        [
          'companyId',
          'createdAt',
          'expiresAt',
          'id',
          'lastUsedAt',
          'operatorId',
          'prefix',
          'replacedBy',
          'revokedAt',
          'role',
          'status',
        ].sort(),
      );
    }
    for (const raw of [first, plain.json().data.apiKey, expiring.json().data.apiKey]) expect(list.body).not.toContain(raw);
    expect((await post('/api/v1/admin/companies/00000000-0000-4000-8000-000000000000/keys')).statusCode).toBe(404);
  });

  it('shows a company its own keys only', async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const res = await get('/api/v1/external/keys', key(a.apiKey));
    expect(res.statusCode).toBe(200);
    const ids = res.json().data.keys.map((k: { id: string }) => k.id);
    expect(ids).toEqual([a.keyId]);
    expect(ids).not.toContain(b.keyId);
  });

  it('revokes a key (twice is harmless) and 404s an unknown one', async () => {
    const { keyId, apiKey } = await createCompany(t);
    const first = await post(`/api/v1/admin/keys/${keyId}/revoke`);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.key).toMatchObject({ id: keyId, status: 'revoked', revokedAt: expect.any(String) });
    const again = await post(`/api/v1/admin/keys/${keyId}/revoke`);
    expect(again.json().data.key.revokedAt).toBe(first.json().data.key.revokedAt);
    expect((await get('/api/v1/auth/whoami', key(apiKey))).statusCode).toBe(401);
    expect((await post('/api/v1/admin/keys/00000000-0000-4000-8000-000000000000/revoke')).statusCode).toBe(404);
    expect((await post('/api/v1/admin/keys/nope/revoke')).statusCode).toBe(404);
  });

  it('rotates a key: the new one works, the old one keeps working for the grace period (24 h by default)', async () => {
    const { keyId, apiKey: old } = await createCompany(t);
    const res = await post(`/api/v1/admin/keys/${keyId}/rotate`);
    expect(res.statusCode).toBe(201);
    const { key: fresh, apiKey, previous } = res.json().data;
    expect(previous).toMatchObject({ id: keyId, status: 'active', replacedBy: fresh.id });
    const grace = Date.parse(previous.expiresAt) - Date.now();
    expect(grace).toBeGreaterThan(23.9 * 3_600_000);
    expect(grace).toBeLessThanOrEqual(24 * 3_600_000);
    expect((await get('/api/v1/auth/whoami', key(apiKey))).json().data.keyId).toBe(fresh.id);
    expect((await get('/api/v1/auth/whoami', key(old))).json().data.keyId).toBe(keyId);
  });

  it('ends the grace period on time: the old key works until then, and fails after', async () => {
    const { keyId, apiKey: old } = await createCompany(t);
    // 1.8 seconds of grace.
    const res = await post(`/api/v1/admin/keys/${keyId}/rotate`, { graceHours: 0.0005 });
    const graceEnd = Date.parse(res.json().data.previous.expiresAt);
    expect((await get('/api/v1/auth/whoami', key(old))).statusCode).toBe(200);
    let status = 200;
    while (status === 200 && Date.now() < graceEnd + 3_000) {
      status = (await get('/api/v1/auth/whoami', key(old))).statusCode;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe(401);
    expect(Date.now()).toBeGreaterThanOrEqual(graceEnd);
    expect((await get('/api/v1/auth/whoami', key(res.json().data.apiKey))).statusCode).toBe(200);
  });

  it('rotates with no grace: the old key fails at once; a rotated, revoked or unknown key cannot be rotated', async () => {
    const { keyId, apiKey: old } = await createCompany(t);
    expect((await get('/api/v1/auth/whoami', key(old))).statusCode).toBe(200);
    const res = await post(`/api/v1/admin/keys/${keyId}/rotate`, { graceHours: 0 });
    expect(res.statusCode).toBe(201);
    expect((await get('/api/v1/auth/whoami', key(old))).statusCode).toBe(401);
    expect((await get('/api/v1/auth/whoami', key(res.json().data.apiKey))).statusCode).toBe(200);

    const second = await createCompany(t);
    expect((await post(`/api/v1/admin/keys/${second.keyId}/rotate`, { graceHours: 1 })).statusCode).toBe(201);
    const twice = await post(`/api/v1/admin/keys/${second.keyId}/rotate`);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().data.code).toBe('INVALID_STATE');
    const revoked = await createCompany(t);
    await post(`/api/v1/admin/keys/${revoked.keyId}/revoke`);
    expect((await post(`/api/v1/admin/keys/${revoked.keyId}/rotate`)).statusCode).toBe(409);
    expect((await post('/api/v1/admin/keys/00000000-0000-4000-8000-000000000000/rotate')).statusCode).toBe(404);
    expect((await post(`/api/v1/admin/keys/${second.keyId}/rotate`, { graceHours: 721 })).statusCode).toBe(400);
  });

  it('rotates operator keys too', async () => {
    const op = await createOperator(t);
    const res = await post(`/api/v1/admin/keys/${op.keyId}/rotate`, { graceHours: 0 }, key(op.apiKey));
    expect(res.statusCode).toBe(201);
    expect(res.json().data.key).toMatchObject({ role: 'operator', operatorId: op.operatorId });
    expect((await get('/api/v1/admin/companies', key(op.apiKey))).statusCode).toBe(401);
    expect((await get('/api/v1/admin/companies', key(res.json().data.apiKey))).statusCode).toBe(200);
  });
});

describe('storage of keys', () => {
  it('keeps no key anywhere in the database: every table dumped as text holds neither the key nor its secret part', async () => {
    const made = [await createCompany(t), await createCompany(t, { rateLimitPerMinute: 5 })];
    const op = await createOperator(t);
    const rotated = (await post(`/api/v1/admin/keys/${made[0]?.keyId}/rotate`)).json().data.apiKey as string;
    const issued = (await post(`/api/v1/admin/companies/${made[1]?.companyId}/keys`)).json().data.apiKey as string;
    const raws = [...made.map((m) => m.apiKey), op.apiKey, rotated, issued];
    for (const raw of raws) expect((await get('/api/v1/auth/whoami', key(raw))).statusCode).toBe(200);
    await t.app.admin.keys.listForCompany(made[0]?.companyId as string);

    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.database.db);
    expect(tables.rows.map((r) => r.name)).toEqual(expect.arrayContaining(['api_keys', 'companies', 'operators']));
    let dump = '';
    for (const { name } of tables.rows) {
      const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} as t`.execute(t.database.db);
      dump += rows.rows.map((r) => r.row).join('\n');
    }
    expect(dump.length).toBeGreaterThan(1000);
    for (const raw of raws) {
      const secret = raw.slice(10);
      for (const form of [raw, secret, Buffer.from(raw).toString('hex'), Buffer.from(raw).toString('base64')]) {
        expect(dump.includes(form)).toBe(false);
      }
      // What is there is the 10-character display prefix, which cannot open anything.
      expect(dump).toContain(raw.slice(0, 10));
    }
  });

  it('answers a cached key with no query (see test/auth.test.ts for 1,000) while the list stays exact', async () => {
    const { companyId, apiKey } = await createCompany(t);
    await get('/api/v1/auth/whoami', key(apiKey));
    const queries = countQueries(t.database.pool);
    await get('/api/v1/auth/whoami', key(apiKey));
    queries.stop();
    expect(queries.count).toBe(0);
    expect((await get(`/api/v1/admin/companies/${companyId}/keys`)).json().data.keys).toHaveLength(1);
  });
});
