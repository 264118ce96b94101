import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../chaos/tcp-proxy.js';
import { createCompany, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const redisUrl = process.env.TEST_REDIS_URL;

/** Redis reached through a proxy of this file's own (port 4120); the shared Redis is never touched. */
describe.runIf(redisUrl)('a blackholed Redis', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    const target = new URL(redisUrl as string);
    proxy = await startTcpProxy({ port: 4120, targetPort: Number(target.port || 6379), targetHost: target.hostname });
    t = await buildTestApp({
      config: {
        redisUrl: 'redis://127.0.0.1:4120',
        redisPrefix: `redflag-test-${randomBytes(5).toString('hex')}:`,
        redisBreakerCooldownMs: 1_000,
      },
    });
    apiKey = (await createCompany(t)).apiKey;
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  const whoami = () => t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) });
  const redisCheck = async () =>
    (await t.app.inject({ method: 'GET', url: '/readyz' })).json().data.checks.find((c: { name: string }) => c.name === 'redis');

  it('is left alone once a command has timed out: later requests do not wait for it, and readiness says degraded', async () => {
    expect((await whoami()).statusCode).toBe(200);
    await proxy.setMode('blackhole');
    // The first request pays the command timeout and opens the breaker; it is still answered.
    expect((await whoami()).statusCode).toBe(200);
    const sentBefore = proxy.stats.bytesFromClients;
    for (let i = 0; i < 10; i++) expect((await whoami()).statusCode).toBe(200);
    // No counter command was sent (and so none waited) while the breaker was open: at most its own PING probes
    // (14 bytes each); ten requests counted in Redis would have sent over a thousand.
    expect(proxy.stats.bytesFromClients - sentBefore).toBeLessThan(100);
    expect(await redisCheck()).toMatchObject({ ready: true, detail: expect.stringMatching(/^degraded/) });
  });

  it('is used again once it answers', async () => {
    await proxy.setMode('pass');
    let detail = '';
    for (let i = 0; i < 100 && detail !== 'connected'; i++) {
      await whoami();
      detail = (await redisCheck()).detail;
      if (detail !== 'connected') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(detail).toBe('connected');
    const forwarded = proxy.stats.bytesForwarded;
    expect((await whoami()).statusCode).toBe(200);
    expect(proxy.stats.bytesForwarded).toBeGreaterThan(forwarded);
  });
});
