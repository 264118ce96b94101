import type pg from 'pg';
import type { TestApp } from './test-app.js';

let counter = 0;
const unique = (base: string) => `${base} ${process.pid}-${++counter}`;

/** An operator and its key, made through the same service the CLI uses. */
export async function createOperator(t: TestApp, name = unique('Operator')) {
  const r = await t.app.admin.operators.create({ name });
  return { operatorId: r.operator.id, keyId: r.key.id, apiKey: r.apiKey };
}

/** A company of this test's own, with its first key. */
export async function createCompany(t: TestApp, options: { businessName?: string; rateLimitPerMinute?: number } = {}) {
  const businessName = options.businessName ?? unique('Test Company');
  const r = await t.app.admin.companies.create({ businessName, rateLimitPerMinute: options.rateLimitPerMinute });
  return { companyId: r.company.id, keyId: r.key.id, apiKey: r.apiKey, businessName };
}

/**
 * Counts the database round trips from now on: every query (Kysely's or anyone's) checks a
 * connection out of the pool, so a checkout is a round trip. The real pool, no mock.
 */
export function countQueries(pool: pg.Pool) {
  let count = 0;
  const onAcquire = () => {
    count++;
  };
  pool.on('acquire', onAcquire);
  return {
    get count() {
      return count;
    },
    stop: () => pool.off('acquire', onAcquire),
  };
}

export const key = (apiKey: string) => ({ 'x-api-key': apiKey });
