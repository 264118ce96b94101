import type { RedisLink } from '../redis/redis-link.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** The store contract of @fastify/rate-limit: count one hit in a fixed window. */
export interface CounterStore {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  /** Counts `n` more hits in the key's current window (a batch's items beyond its first). */
  add(key: string, n: number, timeWindow: number): Promise<{ current: number; ttl: number }>;
  /**
   * Takes back one hit of the key's current window, if it has one: never below zero, never a new
   * window, the window's end unchanged (a refused request given back, decision 0115).
   */
  giveBack(key: string): Promise<void>;
  /** A store for one route with its own limit; the plugin passes the route's merged options, `routeInfo` among them. */
  child(routeOptions: object): CounterStore;
}

function routeName(routeOptions: object): string {
  const info = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
  return `${String(info?.method ?? '')}${String(info?.url ?? '')}`;
}

const MAX_LOCAL_KEYS = 50_000;

/** Fixed-window counters in this process. Bounded: the oldest windows go first when it is full. */
export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  incr(key: string, callback: Callback, timeWindow: number): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (window) this.windows.delete(key);
      else if (this.windows.size >= MAX_LOCAL_KEYS) this.windows.delete(this.windows.keys().next().value as string);
      window = { count: 0, resetAt: now + timeWindow };
      this.windows.set(key, window);
    }
    window.count++;
    callback(null, { current: window.count, ttl: window.resetAt - now });
  }

  async add(key: string, n: number, timeWindow: number): Promise<{ current: number; ttl: number }> {
    const counted = await new Promise<{ current: number; ttl: number }>((resolve) =>
      this.incr(key, (_error, result) => resolve(result as { current: number; ttl: number }), timeWindow),
    );
    const window = this.windows.get(key) as { count: number };
    window.count += n - 1;
    return { current: window.count, ttl: counted.ttl };
  }

  async giveBack(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.resetAt > Date.now() && window.count > 0) window.count--;
  }

  private readonly children = new Map<string, MemoryCounterStore>();

  /** One store per route, found again by name (a refused request's count is given back to it). */
  child(routeOptions: object): CounterStore {
    const name = routeName(routeOptions);
    let child = this.children.get(name);
    if (!child) {
      child = new MemoryCounterStore();
      this.children.set(name, child);
    }
    return child;
  }
}

// INCR and set the expiry on the first hit, atomically: every instance counts in one window.
const INCR_SCRIPT = `
local current = redis.call('INCRBY', KEYS[1], tonumber(ARGV[2] or '1'))
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { current, ttl }`;

// DECR keeps the key's expiry; a key already gone (its window over) is not brought back.
const GIVE_BACK_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current > 0 then redis.call('DECR', KEYS[1]) end
return current`;

type RedisWithCounter = RedisLink['client'] & {
  redflagCount?: (key: string, windowMs: number, by?: number) => Promise<[number, number]>;
  redflagGiveBack?: (key: string) => Promise<number>;
};

/**
 * Counters in Redis, shared by every instance. When Redis cannot answer (down, not yet
 * connected, too slow) the hit is counted in this process instead, so the service keeps
 * answering and keeps limiting — per instance — until Redis is back.
 */
export class RedisCounterStore implements CounterStore {
  private readonly client: RedisWithCounter;

  constructor(
    private readonly redis: RedisLink,
    private readonly namespace: string,
    private readonly fallback: CounterStore = new MemoryCounterStore(),
  ) {
    this.client = redis.client as RedisWithCounter;
    if (!this.client.redflagCount) this.client.defineCommand('redflagCount', { numberOfKeys: 1, lua: INCR_SCRIPT });
    if (!this.client.redflagGiveBack) this.client.defineCommand('redflagGiveBack', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
  }

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    const count = this.client.redflagCount;
    if (!this.redis.isReady() || !count) {
      this.fallback.incr(key, callback, timeWindow, max);
      return;
    }
    count.call(this.client, this.namespace + key, timeWindow).then(
      ([current, ttl]) => callback(null, { current, ttl }),
      (error: unknown) => {
        this.redis.noteFailure(error);
        this.fallback.incr(key, callback, timeWindow, max);
      },
    );
  }

  async add(key: string, n: number, timeWindow: number): Promise<{ current: number; ttl: number }> {
    const count = this.client.redflagCount;
    if (!this.redis.isReady() || !count) return this.fallback.add(key, n, timeWindow);
    try {
      const [current, ttl] = await count.call(this.client, this.namespace + key, timeWindow, n);
      return { current, ttl };
    } catch (error) {
      this.redis.noteFailure(error);
      return this.fallback.add(key, n, timeWindow);
    }
  }

  async giveBack(key: string): Promise<void> {
    const giveBack = this.client.redflagGiveBack;
    // Redis not ready: the hit was counted in this process, so it is given back here.
    if (!this.redis.isReady() || !giveBack) return this.fallback.giveBack(key);
    try {
      await giveBack.call(this.client, this.namespace + key);
    } catch (error) {
      this.redis.noteFailure(error);
      await this.fallback.giveBack(key);
    }
  }

  child(routeOptions: object): CounterStore {
    return new RedisCounterStore(this.redis, `${this.namespace}${routeName(routeOptions)}:`, this.fallback.child(routeOptions));
  }
}
