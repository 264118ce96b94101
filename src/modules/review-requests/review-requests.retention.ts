import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { untilShortBatch } from '../../jobs/batches.js';
import { daysBefore } from '../../jobs/clock.js';
import { deleteClosedBefore } from './review-requests.repository.js';

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
    return untilShortBatch(BATCH, () => deleteClosedBefore(deps.db, before, BATCH));
  };
}
