import { type Kysely, sql } from 'kysely';
import { NAME_INDEX_VERSION } from '../crypto/blind-index.js';
import { SealedValueError } from '../crypto/errors.js';
import type { Crypto } from '../crypto/load-crypto.js';
import type { Database } from '../db/schema.js';
import { normalizeAccountName } from './names.js';

const BATCH = 500;
const TABLES = [
  { table: 'report_identifiers', record: 'report_id' },
  { table: 'public_report_identifiers', record: 'public_report_id' },
] as const;

/**
 * Account names indexed before look-alikes were folded (index version 1) are indexed again: each
 * stored value is opened, normalised by today's rules and its blind index rewritten, version 2.
 * Run at start-up after the migrations (the key is needed, which a migration does not have); once
 * every row is current it costs one look-up in a partial index that is then empty (migration 0015;
 * the version is written as a literal so the planner can match that index's predicate). All-ASCII names get the same index as before,
 * so until a row is done only names with invisible or look-alike characters are missed by search.
 * Returns how many rows were re-indexed.
 */
export async function reindexLookalikeNames(db: Kysely<Database>, crypto: Crypto): Promise<number> {
  let done = 0;
  for (const { table, record } of TABLES) {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await sql<{ id: string; company_id: string; record_id: string; value_token: string }>`
        select id, company_id, ${sql.ref(record)} as record_id, value_token from ${sql.table(table)}
        where label = 'account_name' and index_version < ${sql.lit(NAME_INDEX_VERSION)} and id > ${after}
        order by id limit ${BATCH}`.execute(db);
      if (rows.length === 0) break;
      for (const row of rows) {
        const context = { companyId: row.company_id, recordId: row.record_id, label: 'account_name', rowId: row.id };
        let value: string;
        try {
          value = crypto.keyring.open(row.value_token, context);
        } catch (error) {
          if (error instanceof SealedValueError) continue; // left as it is; rotation reports such rows
          throw error;
        }
        const normalized = normalizeAccountName(value);
        if (!normalized.ok) continue;
        await sql`update ${sql.table(table)}
          set blind_index = ${crypto.blindIndex('account_name', normalized.indexValue)}, index_version = ${NAME_INDEX_VERSION},
              index_key_version = ${crypto.blindIndex.version('account_name')}
          where id = ${row.id} and index_version < ${NAME_INDEX_VERSION}`.execute(db);
        done++;
      }
      after = (rows[rows.length - 1] as { id: string }).id;
    }
  }
  return done;
}
