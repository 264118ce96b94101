import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyEvents, type KeyEvent } from '../src/modules/keys/key-events.js';
import { KEY_CACHE_TTL_MS } from '../src/modules/keys/keys.authenticator.js';
import { openRedisLink } from '../src/redis/redis-link.js';
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

describe.runIf(redisUrl)('the revocation channel', () => {
  it('resumes after the subscriber connection drops, and tells listeners to forget what they cached', async () => {
    const prefix = `redflag-test-${randomBytes(5).toString('hex')}:`;
    const quiet = { info() {}, warn() {} };
    const linkA = openRedisLink(redisUrl as string, { prefix, log: quiet });
    const linkB = openRedisLink(redisUrl as string, { prefix, log: quiet });
    const a = createKeyEvents({ redis: linkA });
    const b = createKeyEvents({ redis: linkB });
    const received: KeyEvent[] = [];
    b.subscribe((event) => received.push(event));
    const arrives = async (keyId: string) => {
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        await a.publish({ kind: 'key', keyId });
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (received.some((e) => e.kind === 'key' && e.keyId === keyId)) return true;
      }
      return false;
    };
    try {
      expect(await linkA.waitUntilReady(2_000)).toBe(true);
      expect(await arrives('before')).toBe(true);
      // Cut B's subscriber connection from the server side, as a network failure would.
      const port = linkB.subscriber.stream.localPort;
      const clients = String(await linkA.client.client('LIST')).split('\n');
      const id = clients.find((line) => line.includes(`:${port} `))?.match(/\bid=(\d+)/)?.[1];
      expect(id).toBeDefined();
      await linkA.client.client('KILL', 'ID', id as string);
      expect(await arrives('after')).toBe(true);
      expect(received).toContainEqual({ kind: 'reset' });
    } finally {
      await a.close();
      await b.close();
      await linkA.close();
      await linkB.close();
    }
  });
});
