import { type Kysely, sql } from 'kysely';

/**
 * Each running service process registers itself and renews a lease; an idempotency key's in-flight
 * marker names the process and the claim. A retry after a crash sees at once that the marker's
 * owner is gone, instead of waiting a fixed minute.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_instances')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('started_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    // 'infinity' on the embedded engine: one process holds the data, and the next start forgets the last.
    .addColumn('lease_until', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema.alterTable('idempotency_keys').addColumn('claimed_by', 'uuid').addColumn('claim_id', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('claim_id').dropColumn('claimed_by').execute();
  await db.schema.dropTable('service_instances').execute();
}
