import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

export async function ensureJobRows(db: Kysely<Database>, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await db
    .insertInto('job_runs')
    .values(names.map((name) => ({ name })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/**
 * Claims a job's run: one conditional UPDATE of its row, so of several instances asking at once
 * exactly one gets the row back (the others wait on the row lock, re-check the condition and find
 * it taken). Due means the previous start is `everyMs` old; `force` skips that, never the lock.
 */
export async function claimRun(
  db: Kysely<Database>,
  claim: { name: string; instance: string; now: Date; everyMs: number; leaseMs: number; force: boolean },
): Promise<boolean> {
  const dueBefore = new Date(claim.now.getTime() - claim.everyMs);
  const rows = await db
    .updateTable('job_runs')
    .set({
      locked_until: new Date(claim.now.getTime() + claim.leaseMs),
      locked_by: claim.instance,
      last_started_at: claim.now,
      runs: sql`runs + 1`,
    })
    .where('name', '=', claim.name)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', claim.now)]))
    .where((eb) =>
      claim.force ? sql<boolean>`true` : eb.or([eb('last_started_at', 'is', null), eb('last_started_at', '<=', dueBefore)]),
    )
    .returning('name')
    .execute();
  return rows.length === 1;
}

/** Holds a run's claim longer while it still works; false when the claim is no longer this instance's. */
export async function renewRun(db: Kysely<Database>, run: { name: string; instance: string; until: Date }): Promise<boolean> {
  const rows = await db
    .updateTable('job_runs')
    .set({ locked_until: run.until })
    .where('name', '=', run.name)
    .where('locked_by', '=', run.instance)
    .returning('name')
    .execute();
  return rows.length === 1;
}

export async function finishRun(
  db: Kysely<Database>,
  run: { name: string; instance: string; now: Date; items: number | null; error: string | null },
): Promise<void> {
  await db
    .updateTable('job_runs')
    .set({
      locked_until: null,
      locked_by: null,
      last_finished_at: run.now,
      last_status: run.error === null ? 'ok' : 'failed',
      last_error: run.error,
      last_items: run.items,
      failures: run.error === null ? sql`failures` : sql`failures + 1`,
    })
    .where('name', '=', run.name)
    .where('locked_by', '=', run.instance)
    .execute();
}

export function listJobRuns(db: Kysely<Database>) {
  return db.selectFrom('job_runs').selectAll().orderBy('name').execute();
}
