import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../src/http/envelope.js';
import { clientAddressRateLimit } from '../src/http/rate-limit.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({
    beforeReady(app) {
      // A public route that opts in to a per-address limit, as the public intake will.
      app.get('/test/public-limited', { config: { rateLimit: clientAddressRateLimit({ max: 2 }) } }, async () => ok({}, 'OK'));
      app.get('/test/public-plain', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ok({}, 'OK'));
    },
  });
});
afterAll(() => t.close());

const whoami = (apiKey: string) => t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) });

describe('rate limits per key (in memory, no Redis)', () => {
  it('answers the 601st request in a minute with 429 in the envelope, Retry-After and RateLimit-* headers', async () => {
    const company = await createCompany(t);
    const other = await createCompany(t);
    for (let i = 1; i <= 600; i++) {
      const res = await whoami(company.apiKey);
      if (res.statusCode !== 200) throw new Error(`request ${i} was ${res.statusCode}`);
      if (i === 1 || i === 600) {
        expect(res.headers['ratelimit-limit']).toBe('600');
        expect(res.headers['ratelimit-remaining']).toBe(String(600 - i));
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
        expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    }
    const res = await whoami(company.apiKey);
    expect(res.statusCode).toBe(429);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers).toMatchObject({ 'ratelimit-limit': '600', 'ratelimit-remaining': '0' });
    expect(Number(res.headers['ratelimit-reset'])).toBe(retryAfter);
    expect(res.json()).toEqual({
      success: false,
      message: expect.stringContaining('Rate limit of 600 requests a minute exceeded'),
      data: { code: 'RATE_LIMITED', requestId: res.headers['x-request-id'], retryAfter },
    });
    // Counted per key: another company's key is untouched.
    expect((await whoami(other.apiKey)).headers['ratelimit-remaining']).toBe('599');
  });

  it("applies a company's own limit to each of its keys", async () => {
    const company = await createCompany(t, { rateLimitPerMinute: 5 });
    const second = await t.app.admin.keys.issueForCompany(company.companyId);
    for (let i = 0; i < 5; i++) expect((await whoami(company.apiKey)).statusCode).toBe(200);
    const res = await whoami(company.apiKey);
    expect(res.statusCode).toBe(429);
    expect(res.headers['ratelimit-limit']).toBe('5');
    expect(res.json().data.code).toBe('RATE_LIMITED');
    // The limit is per key: the company's other key has its own 5.
    const fresh = await whoami(second.apiKey);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers).toMatchObject({ 'ratelimit-limit': '5', 'ratelimit-remaining': '4' });
  });

  it('gives operator keys the default limit and leaves public routes unlimited unless they ask', async () => {
    const operator = await createOperator(t);
    expect((await whoami(operator.apiKey)).headers['ratelimit-limit']).toBe('600');
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.headers['ratelimit-limit']).toBeUndefined();
  });

  it('limits a public route that asks for it per client address', async () => {
    const from = (remoteAddress: string) => t.app.inject({ method: 'GET', url: '/test/public-limited', remoteAddress });
    expect((await from('203.0.113.7')).statusCode).toBe(200);
    expect((await from('203.0.113.7')).headers['ratelimit-remaining']).toBe('0');
    const third = await from('203.0.113.7');
    expect(third.statusCode).toBe(429);
    expect(third.json().data.code).toBe('RATE_LIMITED');
    expect((await from('203.0.113.8')).statusCode).toBe(200);
    // A plain route setting counts per address as well.
    const plain = (remoteAddress: string) => t.app.inject({ method: 'GET', url: '/test/public-plain', remoteAddress });
    expect((await plain('2001:db8::1')).statusCode).toBe(200);
    // The same /64 is one client.
    expect((await plain('2001:db8::2')).statusCode).toBe(429);
    expect((await plain('203.0.113.9')).statusCode).toBe(200);
  });
});

describe('when Redis is configured but unreachable', () => {
  let down: TestApp;
  beforeAll(async () => {
    down = await buildTestApp({ config: { redisUrl: 'redis://127.0.0.1:1', redisPrefix: 'redflag-test-down:' } });
  });
  afterAll(() => down.close());

  it('keeps answering, limits in memory, says so once in the log and in /readyz (200, degraded)', async () => {
    const company = await (async () => {
      const r = await down.app.admin.companies.create({ businessName: 'Outage MFB', rateLimitPerMinute: 3 });
      return r.apiKey;
    })();
    const ask = () => down.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(company) });
    for (let i = 0; i < 3; i++) expect((await ask()).statusCode).toBe(200);
    expect((await ask()).statusCode).toBe(429);

    const ready = await down.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().data.checks).toEqual(
      expect.arrayContaining([
        { name: 'redis', ready: true, detail: 'degraded: unreachable; rate limits are counted per instance' },
      ]),
    );
    const warnings = down.logLines.filter((line) => line.includes('Redis unreachable'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] as string).level).toBe(40);
  });
});
