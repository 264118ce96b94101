import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { daysBefore } from '../../jobs/clock.js';

const BATCH = 200;

/**
 * The public-report clean-up: drafts never moderated after `draftDays`, rejected reports after
 * `rejectedDays` (from their rejection), deleted with their sealed contact details (columns of the
 * row), identifiers (cascade) and evidence files. Each batch is one transaction holding the reports'
 * row locks: a moderator publishing one meanwhile waits, then finds it gone (or, locked first by the
 * moderator, it is skipped and kept with its files). The files' bytes go once the batch committed.
 */
export function createPublicReportsCleanup(deps: {
  db: Kysely<Database>;
  draftDays: number;
  rejectedDays: number;
  detachFiles: (trx: Kysely<Database>, recordIds: readonly string[]) => Promise<{ count: number; bytes: () => Promise<void> }>;
}) {
  const { db } = deps;
  return async function cleanUp(now: Date): Promise<number> {
    const draftsBefore = daysBefore(now, deps.draftDays);
    const rejectedBefore = daysBefore(now, deps.rejectedDays);
    let deleted = 0;
    for (;;) {
      const batch = await db.transaction().execute(async (trx) => {
        const due = await trx
          .selectFrom('public_reports')
          .select('id')
          .where((eb) =>
            eb.or([
              eb.and([eb('status', '=', 'draft'), eb('created_at', '<', draftsBefore)]),
              eb.and([eb('status', '=', 'rejected'), eb('moderated_at', '<', rejectedBefore)]),
            ]),
          )
          .limit(BATCH)
          .forUpdate()
          .skipLocked()
          .execute();
        const ids = due.map((r) => r.id);
        if (ids.length === 0) return { found: 0, gone: 0, bytes: async () => {} };
        const files = await deps.detachFiles(trx, ids);
        const result = await trx.deleteFrom('public_reports').where('id', 'in', ids).executeTakeFirst();
        return { found: ids.length, gone: Number(result.numDeletedRows), bytes: files.bytes };
      });
      await batch.bytes();
      deleted += batch.gone;
      if (batch.found < BATCH) return deleted;
    }
  };
}
