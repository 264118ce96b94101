import { randomUUID } from 'node:crypto';
import type { RedisLink } from '../../redis/redis-link.js';

/** A change that makes cached key verdicts stale. `reset`: changes may have been missed; forget everything. */
export type KeyEvent = { kind: 'key'; keyId: string } | { kind: 'company'; companyId: string } | { kind: 'reset' };

export interface KeyEvents {
  /** Tells this process at once, and every other instance through Redis when there is one. */
  publish(event: KeyEvent): Promise<void>;
  subscribe(listener: (event: KeyEvent) => void): () => void;
  close(): Promise<void>;
}

const CHANNEL = 'key-events';

function parse(message: string): { origin: string; event: KeyEvent } | undefined {
  try {
    const value = JSON.parse(message) as { origin?: unknown; event?: { kind?: unknown; keyId?: unknown; companyId?: unknown } };
    const e = value.event;
    if (typeof value.origin !== 'string' || !e) return undefined;
    if (e.kind === 'key' && typeof e.keyId === 'string') return { origin: value.origin, event: { kind: 'key', keyId: e.keyId } };
    if (e.kind === 'company' && typeof e.companyId === 'string') {
      return { origin: value.origin, event: { kind: 'company', companyId: e.companyId } };
    }
    if (e.kind === 'reset') return { origin: value.origin, event: { kind: 'reset' } };
  } catch {
    // Not ours: ignore.
  }
  return undefined;
}

/**
 * Key-revocation fan-out. In process always; across instances over Redis pub/sub when `redis`
 * is given. Pub/sub delivers at most once, so after the subscriber reconnects listeners get a
 * `reset` (anything may have been missed meanwhile) — and the key cache never trusts an entry
 * for more than 4 s anyway, so a lost message delays a revocation, never cancels it.
 */
export function createKeyEvents(options: { redis?: RedisLink } = {}): KeyEvents {
  const { redis } = options;
  const listeners = new Set<(event: KeyEvent) => void>();
  const origin = randomUUID();
  const emit = (event: KeyEvent) => {
    for (const listener of listeners) listener(event);
  };

  let subscribedOnce = false;
  const channel = redis ? redis.prefix + CHANNEL : '';
  const onMessage = (from: string, message: string) => {
    if (from !== channel) return;
    const parsed = parse(message);
    if (parsed && parsed.origin !== origin) emit(parsed.event);
  };
  const onReady = () => {
    redis?.subscriber.subscribe(channel).then(
      () => {
        if (subscribedOnce) emit({ kind: 'reset' });
        subscribedOnce = true;
      },
      (error: unknown) => redis.noteFailure(error),
    );
  };
  if (redis) {
    redis.subscriber.on('message', onMessage);
    redis.subscriber.on('ready', onReady);
    if (redis.subscriber.status === 'ready') onReady();
  }

  return {
    async publish(event) {
      emit(event);
      if (!redis?.isReady()) return;
      try {
        await redis.client.publish(channel, JSON.stringify({ origin, event }));
      } catch (error) {
        // Other instances still drop the stale entry within the cache's 4 s.
        redis.noteFailure(error);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      if (redis) {
        redis.subscriber.off('message', onMessage);
        redis.subscriber.off('ready', onReady);
      }
    },
  };
}
