import { createHash } from 'node:crypto';
import type { RedisLink } from '../../redis/redis-link.js';

export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

interface Counter {
  /** Failures in the current window and the milliseconds until it ends. */
  get(key: string): Promise<{ count: number; ttlMs: number }>;
  increment(key: string, windowMs: number): Promise<void>;
}

function memoryCounter(now: () => number): Counter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  return {
    async get(key) {
      const w = windows.get(key);
      if (!w || w.endsAt <= now()) return { count: 0, ttlMs: 0 };
      return { count: w.count, ttlMs: w.endsAt - now() };
    },
    async increment(key, windowMs) {
      const w = windows.get(key);
      if (w && w.endsAt > now()) w.count++;
      else {
        if (windows.size >= 50_000) windows.delete(windows.keys().next().value as string);
        windows.set(key, { count: 1, endsAt: now() + windowMs });
      }
    },
  };
}

/** Shared by every instance; when Redis cannot answer, this instance counts alone meanwhile. */
function redisCounter(redis: RedisLink, fallback: Counter): Counter {
  const name = (key: string) => `${redis.prefix}signin:${key}`;
  return {
    async get(key) {
      if (!redis.isReady()) return fallback.get(key);
      try {
        const [count, ttl] = await Promise.all([redis.client.get(name(key)), redis.client.pttl(name(key))]);
        return { count: Number(count ?? 0), ttlMs: Math.max(0, ttl) };
      } catch (error) {
        redis.noteFailure(error);
        return fallback.get(key);
      }
    },
    async increment(key, windowMs) {
      if (!redis.isReady()) return fallback.increment(key, windowMs);
      try {
        const count = await redis.client.incr(name(key));
        // The window starts at the first failure; a lost PEXPIRE is retried by the next failure.
        if (count === 1 || (await redis.client.pttl(name(key))) < 0) await redis.client.pexpire(name(key), windowMs);
      } catch (error) {
        redis.noteFailure(error);
        await fallback.increment(key, windowMs);
      }
    },
  };
}

/**
 * Failed sign-ins counted per account (the e-mail as typed, hashed, so an unknown address is
 * throttled exactly like a known one) and per client address, in fixed windows. Over either limit,
 * sign-in answers 429 before checking the password.
 */
export function createSignInThrottle(
  limits: ThrottleLimits,
  options: { redis?: RedisLink | undefined; now?: () => number } = {},
) {
  const local = memoryCounter(options.now ?? Date.now);
  const counter = options.redis ? redisCounter(options.redis, local) : local;
  const accountKey = (email: string) => `a:${createHash('sha256').update(email.trim().toLowerCase()).digest('base64url')}`;
  const addressKey = (address: string) => `i:${address}`;

  return {
    /** Seconds to wait when the account or the address is over its limit; undefined when free. */
    async retryAfter(email: string, address: string): Promise<number | undefined> {
      const [account, client] = await Promise.all([counter.get(accountKey(email)), counter.get(addressKey(address))]);
      const blocked = [
        account.count >= limits.perAccount ? account.ttlMs : 0,
        client.count >= limits.perAddress ? client.ttlMs : 0,
      ];
      const wait = Math.max(...blocked);
      return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : undefined;
    },
    async recordFailure(email: string, address: string): Promise<void> {
      await Promise.all([
        counter.increment(accountKey(email), limits.windowMs),
        counter.increment(addressKey(address), limits.windowMs),
      ]);
    },
    /**
     * A signed-in user's wrong current passwords, counted for that user alone (per-account limit):
     * apart from sign-in's counters, so failed sign-ins against the address (anyone can send them)
     * never keep its owner from changing the password.
     */
    async userRetryAfter(userId: string): Promise<number | undefined> {
      const own = await counter.get(`u:${userId}`);
      return own.count >= limits.perAccount ? Math.max(1, Math.ceil(own.ttlMs / 1000)) : undefined;
    },
    async recordUserFailure(userId: string): Promise<void> {
      await counter.increment(`u:${userId}`, limits.windowMs);
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
