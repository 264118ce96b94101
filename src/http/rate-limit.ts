import rateLimit, { normalizeIP, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RedisLink } from '../redis/redis-link.js';
import { AppError } from './errors.js';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from './rate-limit-store.js';

const MINUTE_MS = 60_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route whose body holds many requests' worth (a batch): how many it counts for, from the parsed body. */
    rateLimitItems?: (body: unknown) => number;
  }
}

/** @fastify/rate-limit builds its store with `new`; this hands it ours. */
function storeClass(store: CounterStore) {
  return class implements CounterStore {
    incr(...args: Parameters<CounterStore['incr']>) {
      store.incr(...args);
    }
    add(...args: Parameters<CounterStore['add']>) {
      return store.add(...args);
    }
    giveBack(key: string) {
      return store.giveBack(key);
    }
    child(routeOptions: Parameters<CounterStore['child']>[0]) {
      return store.child(routeOptions);
    }
  };
}

/**
 * Limits every authenticated request per key: the company's own limit when it has one, the
 * service default otherwise, in one-minute windows. Counters live in Redis when there is one
 * (all instances share them) and in memory otherwise or while Redis is down.
 *
 * Public routes are not limited unless they ask for it with `config: { rateLimit: clientAddressRateLimit(...) }`.
 * Headers are the IETF draft names (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`),
 * and a 429 is the usual error envelope with `Retry-After` and `data.retryAfter`.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: { defaultPerMinute: number; redis?: RedisLink | undefined },
): Promise<void> {
  const { redis, defaultPerMinute } = options;
  const store = redis ? new RedisCounterStore(redis, `${redis.prefix}rl:`) : new MemoryCounterStore();
  const maxFor = (request: FastifyRequest) => request.principal?.rateLimitPerMinute ?? defaultPerMinute;
  const keyFor = (request: FastifyRequest) => {
    const { principal } = request;
    if (!principal) return `ip:${normalizeIP(request.ip)}`;
    return principal.keyId ? `key:${principal.keyId}` : `user:${principal.user?.userId}`;
  };
  // A batch counted one on arrival (the body was not read yet); its other items count once it is.
  app.addHook('preHandler', async (request, reply) => {
    const items = request.routeOptions.config.rateLimitItems?.(request.body) ?? 1;
    if (items <= 1 || !request.principal) return;
    const max = maxFor(request);
    if (items > max) {
      throw AppError.validation([
        { field: 'items', message: `a batch counts each item as a request: at most ${max}, your limit a minute` },
      ]);
    }
    const key = keyFor(request);
    const { current, ttl } = await store.add(key, items - 1, MINUTE_MS);
    if (current > max) {
      // A refused batch gives its items back (it counts as the one request it was, like any refusal).
      await store.add(key, -(items - 1), MINUTE_MS);
      const retryAfter = Math.max(1, Math.ceil(ttl / 1000));
      throw new AppError(
        'RATE_LIMITED',
        `Rate limit of ${max} requests a minute exceeded (a batch counts each item); retry in ${retryAfter} s`,
        {
          retryAfter,
        },
      );
    }
    // The header said what was left before the items beyond the first were counted.
    reply.header('ratelimit-remaining', String(Math.max(0, max - current)));
  });
  // A route that counts only what it accepted (decision 0115) gives a refused request's count back,
  // so a person correcting a form keeps the allowance meant to stop a flood of reports; every
  // attempt, refused or not, still counts against a looser cap of its own.
  const countsOnlyAccepted = (request: FastifyRequest) => {
    const limit = request.routeOptions.config.rateLimit as ClientAddressLimit | undefined;
    if (!limit?.countsOnlyAccepted) return undefined;
    const routeStore = store.child({ routeInfo: { method: request.routeOptions.method, url: request.routeOptions.url } });
    return { limit, routeStore, key: `ip:${normalizeIP(request.ip)}` };
  };
  app.addHook('onRequest', async (request) => {
    const route = countsOnlyAccepted(request);
    if (!route) return;
    const { current, ttl } = await route.routeStore.add(`attempts:${route.key}`, 1, route.limit.timeWindow);
    if (current > route.limit.attemptsMax) {
      const retryAfter = Math.max(1, Math.ceil(ttl / 1000));
      throw new AppError(
        'RATE_LIMITED',
        `Too many attempts from this address (${route.limit.attemptsMax} ${describeWindow(route.limit.timeWindow)}, refused ones included); retry in ${retryAfter} s`,
        { retryAfter },
      );
    }
  });
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    if (status < 400 || status >= 500 || status === 429) return;
    const route = countsOnlyAccepted(request);
    if (!route) return;
    try {
      await route.routeStore.giveBack(route.key);
    } catch (error) {
      request.log.warn({ err: error }, 'could not give back a refused request to its rate limit');
    }
  });
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: MINUTE_MS,
    max: maxFor,
    // A caller with a key is counted per key, a signed-in user per user; anyone else per address (on routes that opt in).
    keyGenerator: keyFor,
    // Public routes are limited only when they ask, with `config: { rateLimit: {...} }`.
    allowList: (request: FastifyRequest) => request.principal === null && !request.routeOptions.config.rateLimit,
    enableDraftSpec: true,
    store: storeClass(store),
    errorResponseBuilder: (_request, context) => {
      const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
      return new AppError('RATE_LIMITED', `Rate limit of ${context.max} requests a minute exceeded; retry in ${retryAfter} s`, {
        retryAfter,
      });
    },
  });
}

type ClientAddressLimit = RateLimitOptions & { timeWindow: number; countsOnlyAccepted: boolean; attemptsMax: number };

/** With `countsOnlyAccepted`, how many attempts (refused ones included) an address may make, as a multiple of `max`. */
const ATTEMPTS_PER_ACCEPTED = 6;

/**
 * For a public route: a limit per client address (IPv6 by /64), e.g.
 * `config: { rateLimit: clientAddressRateLimit({ max: 10, timeWindow: 3_600_000 }) }`
 * (a plain `config: { rateLimit: { max, timeWindow } }` does the same on a public route; this
 * also counts per address on a route that has a key). Each route counts on its own. Behind a
 * proxy, set Fastify's trustProxy so `request.ip` is the client's.
 */
export function clientAddressRateLimit(options: {
  max: number;
  timeWindow?: number;
  /**
   * Refused requests (4xx other than 429) are given back: `max` counts what the route accepted.
   * Every attempt still counts against `ATTEMPTS_PER_ACCEPTED × max` (a refusal costs work too).
   */
  countsOnlyAccepted?: boolean;
}): ClientAddressLimit {
  const windowMs = options.timeWindow ?? MINUTE_MS;
  return {
    countsOnlyAccepted: options.countsOnlyAccepted ?? false,
    attemptsMax: options.max * ATTEMPTS_PER_ACCEPTED,
    max: options.max,
    timeWindow: windowMs,
    keyGenerator: (request: FastifyRequest) => `ip:${normalizeIP(request.ip)}`,
    allowList: () => false,
    // The global message speaks of minutes; this one names the route's own window.
    errorResponseBuilder: (_request, context) => {
      const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
      return new AppError(
        'RATE_LIMITED',
        `Rate limit of ${context.max} requests ${describeWindow(windowMs)} from this address exceeded; retry in ${retryAfter} s`,
        { retryAfter },
      );
    },
  };
}

function describeWindow(ms: number): string {
  if (ms === MINUTE_MS) return 'a minute';
  if (ms === 60 * MINUTE_MS) return 'an hour';
  return ms % MINUTE_MS === 0 ? `per ${ms / MINUTE_MS} minutes` : `per ${ms / 1000} seconds`;
}
