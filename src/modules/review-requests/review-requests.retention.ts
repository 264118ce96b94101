import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { daysBefore } from '../../jobs/clock.js';

const BATCH = 500;

/**
 * Closed review requests are deleted `closedDays` after their closing: the sealed request names a
 * person who asked to be left alone, and once the operators have answered, keeping it longer than a
 * complaint about the answer could take serves no one. Waiting requests are never deleted: they wait
 * for an answer. The audit rows of the reading and the closing stay (they hold only the request's id).
 */
export function createReviewRequestsRetention(deps: { db: Kysely<Database>; closedDays: number }) {
  return async function purge(now: Date): Promise<number> {
    const before = daysBefore(now, deps.closedDays);
    let deleted = 0;
    for (;;) {
      const gone = await deps.db
        .deleteFrom('review_requests')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('review_requests')
            .select('id')
            .where('status', '=', 'closed')
            .where('closed_at', '<', before)
            .limit(BATCH),
        )
        .executeTakeFirst();
      const n = Number(gone.numDeletedRows);
      deleted += n;
      if (n < BATCH) return deleted;
    }
  };
}
