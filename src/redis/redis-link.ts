import { Redis } from 'ioredis';

/** The part of a pino logger the Redis link uses (the CLI passes a plain stderr writer). */
export interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The Redis connections of one process: `client` for commands (rate-limit counters, publish) and
 * `subscriber` for the key-revocation channel (a subscribed connection can do nothing else).
 *
 * Outage policy: Redis is an accelerator, never a dependency. Commands are not queued while the
 * connection is down (they fail at once and callers fall back: counters in memory, cache entries
 * live at most 4 s); the link logs one warning when an outage starts and one line when it ends,
 * and `/readyz` reports it as degraded while staying 200.
 *
 * A refused connection shows at once (the link is not ready). A blackholed one stays "ready" while
 * every command waits its full timeout, so a failed command opens a circuit breaker: for
 * `breakerCooldownMs` callers see the link as not ready and fall back without waiting, then one
 * PING from the link itself decides whether to close it or wait again.
 */
export interface RedisLink {
  client: Redis;
  subscriber: Redis;
  /** Prepended to every key and channel, so several deployments (or test files) can share a server. */
  prefix: string;
  /** Connected, and not cut off by the circuit breaker: callers may send commands. */
  isReady(): boolean;
  /** Whether the breaker is open (Redis connected but not answering in time). */
  isCircuitOpen(): boolean;
  /** Resolves true once the command connection is ready; false on a connection error or after `timeoutMs`. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
  /** A command failed: start an outage (logged once) if one is not already under way. */
  noteFailure(error: unknown): void;
  close(): Promise<void>;
}

const OPTIONS = {
  // A request must never wait for Redis: fail fast and fall back instead of queueing.
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  commandTimeout: 500,
  retryStrategy: (attempt: number) => Math.min(attempt * 250, 2_000),
} as const;

export function openRedisLink(url: string, options: { prefix: string; log: Log; breakerCooldownMs?: number }): RedisLink {
  const { log, prefix } = options;
  const cooldownMs = options.breakerCooldownMs ?? 5_000;
  const client = new Redis(url, { ...OPTIONS, connectionName: 'redflag' });
  const subscriber = new Redis(url, { ...OPTIONS, connectionName: 'redflag-sub' });
  let outage = false;
  let closing = false;
  let probe: NodeJS.Timeout | undefined;

  const openCircuit = () => {
    if (probe || closing) return;
    probe = setTimeout(() => {
      client.ping().then(
        () => {
          probe = undefined;
          if (outage) log.info({}, 'Redis answering again: shared rate limits restored');
          outage = false;
        },
        () => {
          probe = undefined;
          openCircuit();
        },
      );
    }, cooldownMs);
    probe.unref();
  };

  const startOutage = (error: unknown) => {
    if (outage || closing) return;
    outage = true;
    log.warn(
      { err: error instanceof Error ? { message: error.message } : error },
      'Redis unreachable: rate limits are counted in this process only and key revocations reach other instances through the 4 s key cache, until it answers again',
    );
  };
  client.on('error', startOutage);
  client.on('close', () => startOutage(new Error('connection closed')));
  client.on('ready', () => {
    if (outage) log.info({}, 'Redis reachable again: shared rate limits restored');
    outage = false;
  });
  // The subscriber's own errors are part of the same outage; the listener keeps ioredis quiet.
  subscriber.on('error', () => {});

  return {
    client,
    subscriber,
    prefix,
    isReady: () => client.status === 'ready' && probe === undefined,
    isCircuitOpen: () => probe !== undefined,
    waitUntilReady(timeoutMs) {
      if (client.status === 'ready') return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (ready: boolean) => {
          clearTimeout(timer);
          client.off('ready', onReady);
          client.off('error', onError);
          resolve(ready);
        };
        const onReady = () => done(true);
        // A refused connection will not be ready in time; callers carry on degraded at once.
        const onError = () => done(false);
        const timer = setTimeout(() => done(false), timeoutMs);
        client.on('ready', onReady);
        client.on('error', onError);
      });
    },
    noteFailure(error) {
      startOutage(error);
      if (client.status === 'ready') openCircuit();
    },
    async close() {
      closing = true;
      clearTimeout(probe);
      // quit() waits for replies in flight; disconnect() when the server is gone and quit would hang.
      await Promise.all(
        [client, subscriber].map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect())),
      );
    },
  };
}
