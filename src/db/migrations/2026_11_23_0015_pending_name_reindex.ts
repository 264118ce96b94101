import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Every start looks for account names still indexed under the old name rules
 * (src/identifiers/reindex-names.ts). Without an index that look-up read every identifier row,
 * which on a million identifiers was most of a cold start; these partial indexes hold only the rows
 * still to do, so once they are done the look-up reads nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['report_identifiers', 'public_report_identifiers']) {
    await db.schema
      .createIndex(`${table}_pending_name_reindex_idx`)
      .on(table)
      .column('id')
      .where(sql<boolean>`label = 'account_name' and index_version < 2`)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('public_report_identifiers_pending_name_reindex_idx').execute();
  await db.schema.dropIndex('report_identifiers_pending_name_reindex_idx').execute();
}
