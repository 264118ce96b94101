import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { createFailureRun, type FailureRunLog } from '../../jobs/failure-run.js';
import type { KeyEvent, KeyEvents } from './key-events.js';
import { hashApiKey, isWellFormedApiKey } from './keys.format.js';
import { findApiKeyForAuth, type KeyAuthRow, recordKeysUsed } from './keys.repository.js';

/** Set when a user's session (not a key) is the caller. */
export interface PrincipalUser {
  userId: string;
  /** The user's role within its side (company: admin/analyst/viewer; operator: moderator/admin). */
  userRole: string;
  sessionId: string;
}

export interface CompanyPrincipal {
  role: 'company';
  /** The API key that called, or null in a session (then `user`). */
  keyId: string | null;
  user: PrincipalUser | null;
  companyId: string;
  businessName: string;
  rateLimitPerMinute: number;
}
export interface OperatorPrincipal {
  role: 'operator';
  keyId: string | null;
  user: PrincipalUser | null;
  operatorId: string;
  name: string;
  rateLimitPerMinute: number;
}
/** Who is calling: set on every request to an authenticated route. */
export type Principal = CompanyPrincipal | OperatorPrincipal;

export type AuthOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; code: 'API_KEY_INVALID' | 'FORBIDDEN'; message: string };

/**
 * How long a verified key is trusted without asking the database. Revocation must reach every
 * instance within 5 s; pub/sub usually makes it immediate, but it can lose messages, so the
 * cap holds with or without Redis (4 s + the lookup's own duration stays under 5 s).
 */
export const KEY_CACHE_TTL_MS = 4_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  row: KeyAuthRow;
  /** Built once per load, so a cache hit allocates nothing. */
  principal: Principal | undefined;
  expiresAtMs: number | null;
  cachedUntil: number;
}

export interface KeyAuthenticator {
  authenticate(rawKey: string): Promise<AuthOutcome>;
  /** Writes the pending last-used times now (also runs on a timer and on close). */
  flushLastUsed(): Promise<void>;
  close(): Promise<void>;
}

const INVALID = (message: string): AuthOutcome => ({ ok: false, code: 'API_KEY_INVALID', message });
const MALFORMED = INVALID('The API key is not valid');

function toPrincipal(row: KeyAuthRow, defaultRateLimit: number): Principal | undefined {
  if (row.role === 'company' && row.company_id && row.business_name !== null) {
    return {
      role: 'company',
      keyId: row.id,
      user: null,
      companyId: row.company_id,
      businessName: row.business_name,
      rateLimitPerMinute: row.rate_limit_per_minute ?? defaultRateLimit,
    };
  }
  if (row.role === 'operator' && row.operator_id && row.operator_name !== null) {
    return {
      role: 'operator',
      keyId: row.id,
      user: null,
      operatorId: row.operator_id,
      name: row.operator_name,
      rateLimitPerMinute: defaultRateLimit,
    };
  }
  return undefined;
}

export function createKeyAuthenticator(deps: {
  db: Kysely<Database>;
  events: KeyEvents;
  defaultRateLimitPerMinute: number;
  lastUsedFlushMs: number;
  log: FailureRunLog;
  cacheTtlMs?: number;
}): KeyAuthenticator {
  const { db, events, log, defaultRateLimitPerMinute } = deps;
  const ttl = deps.cacheTtlMs ?? KEY_CACHE_TTL_MS;
  const cache = new Map<string, Entry>();
  const loading = new Map<string, Promise<Entry | undefined>>();
  /** Bumped by every invalidation: a lookup that started before one must not fill the cache. */
  let generation = 0;
  let lastUsed = new Map<string, number>();

  const unsubscribe = events.subscribe((event: KeyEvent) => {
    generation++;
    loading.clear();
    if (event.kind === 'reset') {
      cache.clear();
      return;
    }
    for (const [hash, entry] of cache) {
      if (event.kind === 'key' ? entry.row.id === event.keyId : entry.row.company_id === event.companyId) cache.delete(hash);
    }
  });

  async function load(hash: Buffer, cacheKey: string): Promise<Entry | undefined> {
    const startedGeneration = generation;
    const startedAt = Date.now();
    const row = await findApiKeyForAuth(db, hash);
    if (!row) return undefined;
    const entry: Entry = {
      row,
      principal: toPrincipal(row, defaultRateLimitPerMinute),
      expiresAtMs: row.expires_at ? row.expires_at.getTime() : null,
      // Counted from before the query: the row may have changed while it ran.
      cachedUntil: startedAt + ttl,
    };
    if (startedGeneration === generation) {
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(cacheKey, entry);
    }
    return entry;
  }

  function lookup(rawKey: string): Entry | Promise<Entry | undefined> | undefined {
    const hash = hashApiKey(rawKey);
    const cacheKey = hash.toString('base64');
    const cached = cache.get(cacheKey);
    if (cached && cached.cachedUntil > Date.now()) return cached;
    let pending = loading.get(cacheKey);
    if (!pending) {
      pending = load(hash, cacheKey).finally(() => {
        if (loading.get(cacheKey) === pending) loading.delete(cacheKey);
      });
      loading.set(cacheKey, pending);
    }
    return pending;
  }

  function judge(entry: Entry | undefined): AuthOutcome {
    if (!entry) return INVALID('The API key is not valid');
    const { row } = entry;
    if (row.revoked_at) return INVALID('The API key has been revoked');
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= Date.now()) return INVALID('The API key has expired');
    if (!entry.principal) return INVALID('The API key is not valid');
    if (row.company_status === 'suspended') {
      return { ok: false, code: 'FORBIDDEN', message: 'The company is suspended; its keys are refused' };
    }
    // Coalesced: one batched UPDATE every few seconds, never a write per request.
    lastUsed.set(row.id, Date.now());
    return { ok: true, principal: entry.principal };
  }

  // Every few seconds through an outage: said when it starts and ends, not at every flush.
  const flushFailures = createFailureRun(log, 'API key last-used flush');
  async function flushLastUsed(): Promise<void> {
    if (lastUsed.size === 0) return;
    const batch = lastUsed;
    lastUsed = new Map();
    try {
      await recordKeysUsed(db, new Map([...batch].map(([id, at]) => [id, new Date(at)])));
      flushFailures.succeeded();
    } catch (error) {
      flushFailures.failed(error);
      for (const [id, at] of batch) if ((lastUsed.get(id) ?? 0) < at) lastUsed.set(id, at);
    }
  }

  const timer = setInterval(() => void flushLastUsed(), deps.lastUsedFlushMs);
  timer.unref();

  return {
    async authenticate(rawKey) {
      // The checksum rejects a mistyped or made-up key before any lookup.
      if (!isWellFormedApiKey(rawKey)) return MALFORMED;
      const found = lookup(rawKey);
      return judge(found instanceof Promise ? await found : found);
    },
    flushLastUsed,
    async close() {
      clearInterval(timer);
      unsubscribe();
      await flushLastUsed();
    },
  };
}
