import type pg from 'pg';
import type { TestApp } from './test-app.js';

let counter = 0;
const unique = (base: string) => `${base} ${process.pid}-${++counter}`;

/** An operator and its key, made through the same service the CLI uses. */
export async function createOperator(t: TestApp, name = unique('Operator')) {
  const r = await t.app.admin.operators.create({ name });
  return { operatorId: r.operator.id, keyId: r.key.id, apiKey: r.apiKey, name };
}

/** A company of this test's own, with its first key. */
export async function createCompany(t: TestApp, options: { businessName?: string; rateLimitPerMinute?: number } = {}) {
  const businessName = options.businessName ?? unique('Test Company');
  const r = await t.app.admin.companies.create({ businessName, rateLimitPerMinute: options.rateLimitPerMinute });
  return { companyId: r.company.id, keyId: r.key.id, apiKey: r.apiKey, businessName };
}

/** What each pooled client's statements are shown to, wrapped on its first counted checkout. */
const listening = new WeakMap<pg.PoolClient, Set<(text: string) => void>>();

function listenersOf(client: pg.PoolClient): Set<(text: string) => void> {
  const known = listening.get(client);
  if (known) return known;
  const shown = new Set<(text: string) => void>();
  listening.set(client, shown);
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  // Shown, then sent as it was: the client is the pool's own.
  client.query = ((...args: unknown[]) => {
    const first = args[0] as string | { text?: unknown };
    const text = typeof first === 'string' ? first : String(first?.text ?? '');
    for (const listener of shown) listener(text);
    return send(...args);
  }) as typeof client.query;
  return shown;
}

/**
 * Counts the database round trips from now on: every query (Kysely's or anyone's) checks a
 * connection out of the pool, so a checkout is a round trip. The real pool, no mock.
 *
 * With `touching` (a table's name), only the statements that name it: on the server engine each
 * instance renews its lease twice a second on the same pool (src/modules/instances), which a test
 * counting one feature's queries must not count as that feature's.
 */
export function countQueries(pool: pg.Pool, touching?: string) {
  let count = 0;
  const names = touching === undefined ? undefined : new RegExp(`\\b${touching}\\b`);
  const onStatement = (text: string) => {
    if (names?.test(text)) count++;
  };
  const watched = new Set<pg.PoolClient>();
  const onAcquire = (client: pg.PoolClient) => {
    if (!names) {
      count++;
      return;
    }
    listenersOf(client).add(onStatement);
    watched.add(client);
  };
  pool.on('acquire', onAcquire);
  return {
    get count() {
      return count;
    },
    stop: () => {
      pool.off('acquire', onAcquire);
      for (const client of watched) listenersOf(client).delete(onStatement);
    },
  };
}

export const key = (apiKey: string) => ({ 'x-api-key': apiKey });
