import { type Kysely, sql } from 'kysely';
import { rewriteTables } from '../db/rewrite-tables.js';
import type { Database } from '../db/schema.js';
import type { SealContext } from './keyring.js';
import { type SealedColumn, sealedColumns } from './sealed-columns.js';

const BATCH = 500;

/** A sealed column that an earlier version wrote in clear, into `clearColumn` (of a table keyed by `id`). */
type ClearBefore = SealedColumn & { clearColumn: string; idColumn: 'id' };

function hadClearValues(column: SealedColumn): column is ClearBefore {
  if (column.clearColumn === undefined) return false;
  if (column.idColumn !== 'id' || column.readFrom !== undefined) {
    throw new Error(`${column.table}.${column.clearColumn}: the sweep reads a table keyed by id, not a view or a composite key`);
  }
  return true;
}

/**
 * Seals the texts still stored in clear (rows written before their column was sealed), a batch per
 * transaction, clearing the clear column as it goes; a value in `keepClear` (a fixed phrase the
 * service writes) stays. A row that already has a token keeps it (an instance of this version wrote
 * it later) and only loses its clear copy. Run at start-up by the process that migrates (a
 * migration has no key); once done it is one look-up in an empty partial index per column.
 *
 * A table it changed is rewritten after (rewrite-tables.ts, decision 0135), so the old row versions
 * holding the clear text leave its files. The write-ahead log and earlier backups still hold
 * them until they are recycled. Returns how many texts it sealed.
 */
export async function sealClearTexts(
  db: Kysely<Database>,
  sealer: { seal(text: string, context: SealContext): string },
  columns: readonly SealedColumn[] = sealedColumns,
): Promise<number> {
  let done = 0;
  const changed = new Set<string>();
  for (const column of columns.filter(hadClearValues)) {
    const clear = sql.ref(column.clearColumn);
    const token = sql.ref(column.tokenColumn);
    const kept = column.keepClear?.length
      ? sql` and ${clear} not in (${sql.join(column.keepClear.map((t) => sql.lit(t)))})`
      : sql``;
    const context = column.contextColumns.map((name) => sql`, ${sql.ref(name)}`);
    for (;;) {
      const count = await db.transaction().execute(async (trx) => {
        const { rows } = await sql<Record<string, unknown> & { id: string }>`
          select id, ${clear} as clear_text${sql.join(context, sql``)} from ${sql.table(column.table)}
          where ${clear} is not null${kept} order by id limit ${BATCH} for update`.execute(trx);
        if (rows.length === 0) return 0;
        const values = rows.map((row) => sql`(${row.id}::uuid, ${sealer.seal(String(row.clear_text), column.context(row))})`);
        await sql`update ${sql.table(column.table)} as t set ${token} = coalesce(t.${token}, v.token), ${clear} = null
          from (values ${sql.join(values)}) as v(id, token) where t.id = v.id`.execute(trx);
        return rows.length;
      });
      done += count;
      if (count > 0) changed.add(column.table);
      if (count < BATCH) break;
    }
  }
  // A report's card holds its exit reason as it was (migration 0018): rebuilt by the update, the old one is a dead row.
  if (changed.has('reports')) changed.add('report_cards');
  await rewriteTables(db, changed);
  return done;
}
