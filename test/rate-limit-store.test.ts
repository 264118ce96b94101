import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryCounterStore, RedisCounterStore } from '../src/http/rate-limit-store.js';
import { openRedisLink } from '../src/redis/redis-link.js';

const HOUR_MS = 3_600_000;
const redisUrl = process.env.TEST_REDIS_URL;

// A refused request's hit is given back (decision 0115): never below zero, never a new window,
// and the window's end unchanged, or a stream of refusals would buy an address extra reports.
describe('giving back a hit', () => {
  it('in memory: only to a window that has hits', async () => {
    const store = new MemoryCounterStore();
    await store.giveBack('ip:a');
    expect((await store.add('ip:a', 1, HOUR_MS)).current).toBe(1);
    await store.giveBack('ip:a');
    await store.giveBack('ip:a');
    expect((await store.add('ip:a', 1, HOUR_MS)).current).toBe(1);
  });

  it('in memory: one route store per route, found again by name', () => {
    const store = new MemoryCounterStore();
    const route = { routeInfo: { method: 'POST', url: '/api/v1/public/reports' } };
    expect(store.child(route)).toBe(store.child({ routeInfo: { ...route.routeInfo } }));
    expect(store.child(route)).not.toBe(store.child({ routeInfo: { method: 'POST', url: '/api/v1/public/uploads' } }));
  });

  describe.runIf(redisUrl)('in Redis', () => {
    const link = openRedisLink(redisUrl as string, {
      prefix: `redflag-test-${randomBytes(5).toString('hex')}:`,
      log: { info() {}, warn() {} },
    });
    afterAll(async () => {
      await link.close();
    });

    it('keeps the window and its end, and never goes below zero or brings back a window', async () => {
      expect(await link.waitUntilReady(5_000)).toBe(true);
      const store = new RedisCounterStore(link, `${link.prefix}rl:`);
      await store.giveBack('ip:gone');
      expect(await link.client.exists(`${link.prefix}rl:ip:gone`)).toBe(0);
      await store.add('ip:b', 2, HOUR_MS);
      const ttlBefore = await link.client.pttl(`${link.prefix}rl:ip:b`);
      for (let i = 0; i < 3; i++) await store.giveBack('ip:b');
      expect(await link.client.get(`${link.prefix}rl:ip:b`)).toBe('0');
      const ttlAfter = await link.client.pttl(`${link.prefix}rl:ip:b`);
      expect(ttlAfter).toBeGreaterThan(0);
      expect(ttlAfter).toBeLessThanOrEqual(ttlBefore);
    });
  });
});
