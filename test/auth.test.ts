import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_CACHE_TTL_MS } from '../src/modules/keys/keys.authenticator.js';
import { generateApiKey } from '../src/modules/keys/keys.format.js';
import { countQueries, createCompany, createOperator, key } from './helpers/principals.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let operator: Awaited<ReturnType<typeof createOperator>>;

beforeAll(async () => {
  // Last-used times are written only on close here, and no background poller runs, so query counts
  // see requests alone (and the server engine's lease renewals, which the key counts leave out).
  t = await buildTestApp({ config: { keyLastUsedFlushMs: 300_000, webhookPollMs: 0, screeningPollMs: 0, jobTickSeconds: 0 } });
  operator = await createOperator(t);
});
afterAll(() => t.close());

const whoami = (apiKey?: string) =>
  t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: apiKey === undefined ? {} : key(apiKey) });

function changeOneCharacter(apiKey: string, position: number): string {
  const c = apiKey[position] === 'a' ? 'b' : 'a';
  return apiKey.slice(0, position) + c + apiKey.slice(position + 1);
}

describe('x-api-key authentication', () => {
  it('answers 401 API_KEY_MISSING without a key, on every authenticated route', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/auth/whoami'],
      ['GET', '/api/v1/external/keys'],
      ['GET', '/api/v1/admin/companies'],
      ['POST', '/api/v1/admin/companies'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toMatchObject({
        success: false,
        data: { code: 'API_KEY_MISSING', requestId: res.headers['x-request-id'] },
      });
    }
  });

  it('lets a valid key in and tells who it belongs to', async () => {
    const company = await createCompany(t, { businessName: 'Whoami MFB' });
    const res = await whoami(company.apiKey);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      role: 'company',
      keyId: company.keyId,
      userId: null,
      rateLimitPerMinute: 600,
      company: { id: company.companyId, businessName: 'Whoami MFB' },
      operator: null,
    });
    const op = await whoami(operator.apiKey);
    expect(op.json().data).toMatchObject({
      role: 'operator',
      keyId: operator.keyId,
      company: null,
      operator: { id: operator.operatorId },
    });
  });

  it('rejects a malformed key or a key with one character changed with 401 and no database query', async () => {
    const company = await createCompany(t);
    const queries = countQueries(t.database.pool);
    try {
      const candidates = [
        'not-a-key',
        'rf_short',
        `${company.apiKey}x`,
        company.apiKey.toUpperCase(),
        // One character changed in the random part, in the checksum, and in the prefix; the key was never used, so nothing is cached.
        changeOneCharacter(company.apiKey, 10),
        changeOneCharacter(company.apiKey, company.apiKey.length - 1),
        changeOneCharacter(company.apiKey, 1),
      ];
      for (const candidate of candidates) {
        const res = await whoami(candidate);
        expect(res.statusCode, candidate).toBe(401);
        expect(res.json().data.code).toBe('API_KEY_INVALID');
      }
      expect(queries.count).toBe(0);
    } finally {
      queries.stop();
    }
    // The untouched key works (and the lookup it needs is one query).
    expect((await whoami(company.apiKey)).statusCode).toBe(200);
  });

  it('rejects a well-formed key that was never issued with 401 API_KEY_INVALID', async () => {
    const res = await whoami(generateApiKey());
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ message: 'The API key is not valid', data: { code: 'API_KEY_INVALID' } });
  });

  it('rejects a revoked key with 401 at once on the instance that revoked it', async () => {
    const company = await createCompany(t);
    expect((await whoami(company.apiKey)).statusCode).toBe(200);
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/keys/${company.keyId}/revoke`,
      headers: key(operator.apiKey),
    });
    expect(revoke.statusCode).toBe(200);
    const res = await whoami(company.apiKey);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ message: 'The API key has been revoked', data: { code: 'API_KEY_INVALID' } });
  });

  it('rejects an expired key with 401', async () => {
    const company = await createCompany(t);
    const issued = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/companies/${company.companyId}/keys`,
      headers: key(operator.apiKey),
      payload: { expiresInDays: 1 },
    });
    expect(issued.statusCode).toBe(201);
    const { apiKey, key: view } = issued.json().data;
    expect(Date.parse(view.expiresAt) - Date.now()).toBeGreaterThan(86_000_000);
    // A day passes.
    await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${view.id}`.execute(t.database.db);
    const res = await whoami(apiKey);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ message: 'The API key has expired', data: { code: 'API_KEY_INVALID' } });
  });

  it('answers 403 FORBIDDEN to a key of the wrong role', async () => {
    const company = await createCompany(t);
    const asCompany = await t.app.inject({ method: 'GET', url: '/api/v1/admin/companies', headers: key(company.apiKey) });
    expect(asCompany.statusCode).toBe(403);
    expect(asCompany.json()).toMatchObject({ message: 'This route needs an operator key', data: { code: 'FORBIDDEN' } });
    const asOperator = await t.app.inject({ method: 'GET', url: '/api/v1/external/keys', headers: key(operator.apiKey) });
    expect(asOperator.statusCode).toBe(403);
    expect(asOperator.json().data.code).toBe('FORBIDDEN');
  });

  it("refuses a suspended company's keys with 403 and lets them in again once it is activated", async () => {
    const company = await createCompany(t);
    const second = await t.app.admin.keys.issueForCompany(company.companyId);
    expect((await whoami(company.apiKey)).statusCode).toBe(200);
    const admin = key(operator.apiKey);
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/v1/admin/companies/${company.companyId}/suspend`, headers: admin }))
        .statusCode,
    ).toBe(200);
    for (const apiKey of [company.apiKey, second.apiKey]) {
      const res = await whoami(apiKey);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        data: { code: 'FORBIDDEN' },
        message: 'The company is suspended; its keys are refused',
      });
    }
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/v1/admin/companies/${company.companyId}/activate`, headers: admin }))
        .statusCode,
    ).toBe(200);
    expect((await whoami(company.apiKey)).statusCode).toBe(200);
    expect((await whoami(second.apiKey)).statusCode).toBe(200);
  });

  it('answers 401 before looking at the body (malformed JSON, invalid fields, too large)', async () => {
    const bodies = [
      { headers: { 'content-type': 'application/json' }, payload: '{"businessName": ' },
      { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ businessName: 42, surprise: true }) },
      { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ businessName: 'x'.repeat(400_000) }) },
      { headers: { 'content-type': 'application/xml' }, payload: '<company/>' },
    ];
    for (const body of bodies) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/admin/companies', ...body });
      expect(res.statusCode).toBe(401);
      expect(res.json().data.code).toBe('API_KEY_MISSING');
    }
    // A key of the wrong role is 403 before the body too; the right key then meets validation.
    const company = await createCompany(t);
    const wrongRole = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/companies',
      ...bodies[1],
      headers: { ...bodies[1]?.headers, ...key(company.apiKey) },
    });
    expect(wrongRole.statusCode).toBe(403);
    const invalid = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/companies',
      ...bodies[1],
      headers: { ...bodies[1]?.headers, ...key(operator.apiKey) },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().data.code).toBe('VALIDATION_FAILED');
  });

  it('makes no database round trip for a cached key: 1,000 requests, 0 queries', async () => {
    const company = await createCompany(t, { rateLimitPerMinute: 10_000 });
    const loadedAt = Date.now();
    expect((await whoami(company.apiKey)).statusCode).toBe(200);
    const queries = countQueries(t.database.pool, 'api_keys');
    try {
      for (let i = 0; i < 1000; i++) {
        const res = await whoami(company.apiKey);
        if (res.statusCode !== 200) throw new Error(`request ${i}: ${res.statusCode} ${res.body}`);
      }
      // One refresh per cache lifetime is the design (revocations must land within 5 s): none while
      // the entry loaded before the loop is fresh, one more for each lifetime a loaded machine
      // makes the loop outlive. A query per request would be 1,000.
      expect(queries.count).toBeLessThanOrEqual(Math.floor((Date.now() - loadedAt) / KEY_CACHE_TTL_MS));
    } finally {
      queries.stop();
    }
  });
});

describe('revocation across instances without Redis', () => {
  it('is refused by another instance that had the key cached within 5 seconds', async () => {
    const other = await buildSiblingApp(t);
    try {
      const company = await createCompany(t);
      const ask = () => other.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(company.apiKey) });
      expect((await ask()).statusCode).toBe(200);
      expect((await ask()).statusCode).toBe(200);
      const revokedAt = Date.now();
      await t.app.inject({ method: 'POST', url: `/api/v1/admin/keys/${company.keyId}/revoke`, headers: key(operator.apiKey) });
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 6_000) {
        status = (await ask()).statusCode;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThan(5_000);
    } finally {
      await other.close();
    }
  });
});

describe('last-used times', () => {
  it('are coalesced: no write per request, one batch on close', async () => {
    const other = await buildSiblingApp(t, { keyLastUsedFlushMs: 300_000 });
    const company = await createCompany(t);
    const lastUsed = async () =>
      (await sql<{ at: Date | null }>`select last_used_at as at from api_keys where id = ${company.keyId}`.execute(t.database.db))
        .rows[0]?.at;
    const ask = () => other.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(company.apiKey) });
    await ask();
    const queries = countQueries(t.database.pool, 'api_keys');
    for (let i = 0; i < 50; i++) await ask();
    queries.stop();
    expect(queries.count).toBe(0);
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    await other.close();
    const at = await lastUsed();
    expect(at).toBeInstanceOf(Date);
    expect(at?.getTime()).toBeLessThanOrEqual(before + 1000);
    expect(at?.getTime()).toBeGreaterThan(before - 60_000);
  });

  it('are written every few seconds while the service runs', async () => {
    const other = await buildSiblingApp(t, { keyLastUsedFlushMs: 100 });
    try {
      const company = await createCompany(t);
      await other.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(company.apiKey) });
      const deadline = Date.now() + 5_000;
      let listed: { lastUsedAt: string | null } | undefined;
      while (Date.now() < deadline) {
        listed = (await t.app.admin.keys.listForCompany(company.companyId))[0];
        if (listed?.lastUsedAt) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(listed?.lastUsedAt).toEqual(expect.any(String));
    } finally {
      await other.close();
    }
  });
});

describe('failed key checks from one address', () => {
  it('are refused with 429 once the address has failed too often, while a valid key from it still works', async () => {
    const t = await buildTestApp({ config: { failedKeyChecksPerMinute: 3 } });
    try {
      const { apiKey } = await createCompany(t);
      // Well-formed keys (valid checksum) that were never issued: each costs a lookup.
      for (let i = 0; i < 3; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(generateApiKey()) });
        expect(res.statusCode).toBe(401);
      }
      const blocked = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(generateApiKey()) });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().data.code).toBe('RATE_LIMITED');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Behind a load balancer every tenant shares the address: a valid key is never locked out.
      const valid = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) });
      expect(valid.statusCode).toBe(200);
      const stillBlocked = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(generateApiKey()) });
      expect(stillBlocked.statusCode).toBe(429);
      // Another address is not affected.
      const elsewhere = await t.app.inject({
        method: 'GET',
        url: '/api/v1/auth/whoami',
        headers: key(generateApiKey()),
        remoteAddress: '10.9.8.7',
      });
      expect(elsewhere.statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
