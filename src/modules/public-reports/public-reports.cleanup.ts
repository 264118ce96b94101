import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { daysBefore } from '../../jobs/clock.js';

const BATCH = 200;

/**
 * The public-report clean-up: drafts never moderated after `draftDays`, rejected reports after
 * `rejectedDays` (from their rejection), deleted with their sealed contact details (columns of the
 * row), identifiers (cascade) and evidence files. Files go first: a run cut short leaves reports
 * that the next run finds again, never files without their report.
 */
export function createPublicReportsCleanup(deps: {
  db: Kysely<Database>;
  draftDays: number;
  rejectedDays: number;
  removeFiles: (recordIds: readonly string[]) => Promise<number>;
}) {
  const { db } = deps;
  return async function cleanUp(now: Date): Promise<number> {
    const draftsBefore = daysBefore(now, deps.draftDays);
    const rejectedBefore = daysBefore(now, deps.rejectedDays);
    let deleted = 0;
    for (;;) {
      const due = await db
        .selectFrom('public_reports')
        .select('id')
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'draft'), eb('created_at', '<', draftsBefore)]),
            eb.and([eb('status', '=', 'rejected'), eb('moderated_at', '<', rejectedBefore)]),
          ]),
        )
        .limit(BATCH)
        .execute();
      const ids = due.map((r) => r.id);
      if (ids.length === 0) return deleted;
      await deps.removeFiles(ids);
      // Re-checked on delete: a draft published meanwhile stays.
      const result = await db
        .deleteFrom('public_reports')
        .where('id', 'in', ids)
        .where('status', 'in', ['draft', 'rejected'])
        .executeTakeFirst();
      deleted += Number(result.numDeletedRows);
      if (ids.length < BATCH) return deleted;
    }
  };
}
