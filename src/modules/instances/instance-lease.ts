import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Engine } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { createFailureRun, type FailureRunLog } from '../../jobs/failure-run.js';

/** How long a server-engine instance counts as alive after its last renewal. */
export const INSTANCE_LEASE_MS = 2_000;
const RENEW_EVERY_MS = 500;

export interface InstanceLease {
  /** This process's id, written into the idempotency markers it holds. */
  readonly id: string;
  close(): Promise<void>;
}

/**
 * Registers this service process. On the server engine the lease is renewed twice a second, so a
 * process killed with SIGKILL is known to be gone within 2 s; on the embedded engine only one
 * process can hold the data (the data-directory lock), so its lease never lapses and the next
 * start forgets every earlier one — a dead holder is recognised at once.
 */
export async function registerInstance(db: Kysely<Database>, engine: Engine, log: FailureRunLog): Promise<InstanceLease> {
  const id = randomUUID();
  if (engine === 'embedded') await db.deleteFrom('service_instances').execute();
  const leaseUntil = engine === 'embedded' ? sql<Date>`'infinity'::timestamptz` : leaseFromNow();
  await db.insertInto('service_instances').values({ id, lease_until: leaseUntil }).execute();
  let renewing: NodeJS.Timeout | undefined;
  if (engine === 'server') {
    // The database is down: requests are failing with 503 anyway; said once, not twice a second.
    const failures = createFailureRun(log, 'instance lease renewal');
    // One renewal at a time: through a link that drops packets they would pile up behind the
    // connection wait and end out of order (a late failure after a later success).
    let inFlight = false;
    renewing = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      void db
        .updateTable('service_instances')
        .set({ lease_until: leaseFromNow() })
        .where('id', '=', id)
        .execute()
        .then(failures.succeeded, failures.failed)
        .finally(() => {
          inFlight = false;
        });
    }, RENEW_EVERY_MS);
    renewing.unref();
    // Leases of processes that died long ago are of no use to anyone.
    await db.deleteFrom('service_instances').where('lease_until', '<', sql<Date>`now() - interval '1 day'`).execute();
  }
  return {
    id,
    async close() {
      clearInterval(renewing);
      await db
        .deleteFrom('service_instances')
        .where('id', '=', id)
        .execute()
        .catch(() => {});
    },
  };
}

function leaseFromNow() {
  return sql<Date>`now() + ${`${INSTANCE_LEASE_MS} milliseconds`}::interval`;
}
