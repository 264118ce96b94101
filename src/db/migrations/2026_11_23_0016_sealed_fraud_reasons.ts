import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Reasons are sealed (src/modules/reports/sealed-reason.ts): a token column, and the clear column
 * may be empty. Existing reasons are sealed at the next start by the process that migrates (a
 * migration has no key); the partial indexes find the rows still to do without reading the table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['reports', 'public_reports']) {
    await db.schema.alterTable(table).addColumn('fraud_reason_token', 'text').execute();
    await db.schema
      .alterTable(table)
      .alterColumn('fraud_reason', (col) => col.dropNotNull())
      .execute();
    await db.schema
      .createIndex(`${table}_reason_to_seal_idx`)
      .on(table)
      .column('id')
      .where(sql<boolean>`fraud_reason is not null`)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['reports', 'public_reports']) {
    await db.schema.dropIndex(`${table}_reason_to_seal_idx`).execute();
    await db.schema.alterTable(table).dropColumn('fraud_reason_token').execute();
  }
}
