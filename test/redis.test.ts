import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_CACHE_TTL_MS } from '../src/modules/keys/keys.authenticator.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';

const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(redisUrl)('two instances sharing Redis', () => {
  let a: TestApp;
  let b: FastifyInstance;
  let admin: Record<string, string>;

  beforeAll(async () => {
    // A prefix of this file's own, so parallel runs never share counters or channels.
    const redisPrefix = `redflag-test-${randomBytes(5).toString('hex')}:`;
    a = await buildTestApp({ config: { redisUrl, redisPrefix } });
    b = await buildSiblingApp(a);
    admin = key((await createOperator(a)).apiKey);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const whoami = (app: FastifyInstance, apiKey: string) =>
    app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) });

  it('report Redis as connected', async () => {
    const ready = await a.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json().data.checks).toEqual(expect.arrayContaining([{ name: 'redis', ready: true, detail: 'connected' }]));
  });

  it('enforce one limit between them', async () => {
    const company = await createCompany(a, { rateLimitPerMinute: 6 });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      for (const app of [a.app, b]) {
        const res = await whoami(app, company.apiKey);
        expect(res.statusCode).toBe(200);
        seen.push(res.headers['ratelimit-remaining'] as string);
      }
    }
    // One counter: remaining counts down across both instances.
    expect(seen).toEqual(['5', '4', '3', '2', '1', '0']);
    for (const app of [a.app, b]) {
      const res = await whoami(app, company.apiKey);
      expect(res.statusCode).toBe(429);
      expect(res.json().data.code).toBe('RATE_LIMITED');
    }
  });

  it('refuse a revoked key on the other instance through pub/sub, before its cache entry would expire', async () => {
    const company = await createCompany(a);
    const loadedAt = Date.now();
    expect((await whoami(b, company.apiKey)).statusCode).toBe(200);
    expect(
      (await a.app.inject({ method: 'POST', url: `/api/v1/admin/keys/${company.keyId}/revoke`, headers: admin })).statusCode,
    ).toBe(200);
    let status = 200;
    while (status === 200 && Date.now() - loadedAt < 6_000) {
      status = (await whoami(b, company.apiKey)).statusCode;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(401);
    // Refused while B's cached entry was still within its lifetime: the message, not the expiry, did it.
    expect(Date.now() - loadedAt).toBeLessThan(KEY_CACHE_TTL_MS);
  });

  it('refuse a suspended company on the other instance through pub/sub', async () => {
    const company = await createCompany(a);
    const loadedAt = Date.now();
    expect((await whoami(b, company.apiKey)).statusCode).toBe(200);
    await a.app.inject({ method: 'POST', url: `/api/v1/admin/companies/${company.companyId}/suspend`, headers: admin });
    let status = 200;
    while (status === 200 && Date.now() - loadedAt < 6_000) {
      status = (await whoami(b, company.apiKey)).statusCode;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(403);
    expect(Date.now() - loadedAt).toBeLessThan(KEY_CACHE_TTL_MS);
  });
});
