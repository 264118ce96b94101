import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { untilShortBatch } from '../../jobs/batches.js';
import { daysBefore } from '../../jobs/clock.js';

const BATCH = 5_000;

/** Audit retention: rows older than `auditDays` are deleted, a batch a statement so no lock is held long. */
export function createAuditRetention(deps: { db: Kysely<Database>; auditDays: number }) {
  return async function purge(now: Date): Promise<number> {
    const before = daysBefore(now, deps.auditDays);
    return untilShortBatch(BATCH, async () => {
      const result = await sql<{ n: number }>`
        with gone as (
          delete from audit_events where id in (
            select id from audit_events where created_at < ${before} limit ${BATCH} for update skip locked
          ) returning 1
        ) select count(*)::int as n from gone`.execute(deps.db);
      return result.rows[0]?.n ?? 0;
    });
  };
}
