import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SealContext } from './keyring.js';
import { type SealedColumn, sealedColumns } from './sealed-columns.js';

const BATCH = 500;

/** A sealed column that an earlier version wrote in clear, into `clearColumn`. */
type ClearBefore = SealedColumn & { clearColumn: string };

const hadClearValues = (column: SealedColumn): column is ClearBefore => column.clearColumn !== undefined;

/**
 * Seals the texts still stored in clear (rows written before their column was sealed), a batch per
 * transaction, clearing the clear column as it goes; a value in `keepClear` (a fixed phrase the
 * service writes) stays. Run at start-up by the process that migrates (a migration has no key);
 * once done it is one look-up in an empty partial index per column. Returns how many.
 */
export async function sealClearTexts(
  db: Kysely<Database>,
  sealer: { seal(text: string, context: SealContext): string },
  columns: readonly SealedColumn[] = sealedColumns,
): Promise<number> {
  let done = 0;
  for (const column of columns.filter(hadClearValues)) {
    const clear = sql.ref(column.clearColumn);
    const kept = column.keepClear?.length
      ? sql` and ${clear} not in (${sql.join(column.keepClear.map((t) => sql.lit(t)))})`
      : sql``;
    const context = sql.join(column.contextColumns.map((name) => sql.ref(name)));
    for (;;) {
      const count = await db.transaction().execute(async (trx) => {
        const { rows } = await sql<Record<string, unknown> & { id: string }>`
          select id, ${clear} as clear_text, ${context} from ${sql.table(column.table)}
          where ${clear} is not null${kept} order by id limit ${BATCH} for update`.execute(trx);
        if (rows.length === 0) return 0;
        const values = rows.map((row) => sql`(${row.id}::uuid, ${sealer.seal(String(row.clear_text), column.context(row))})`);
        await sql`update ${sql.table(column.table)} as t set ${sql.ref(column.tokenColumn)} = v.token, ${clear} = null
          from (values ${sql.join(values)}) as v(id, token) where t.id = v.id`.execute(trx);
        return rows.length;
      });
      done += count;
      if (count < BATCH) break;
    }
  }
  return done;
}
