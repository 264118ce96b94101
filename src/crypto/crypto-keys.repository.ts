import type { Kysely, Transaction } from 'kysely';
import type { CryptoKeysTable, Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface CryptoKeyRow {
  id: string;
  kind: CryptoKeysTable['kind'];
  label: string | null;
  version: number | null;
  wrapped: Buffer;
  root_id: Buffer;
  created_at: Date;
}

export type NewCryptoKeyRow = Omit<CryptoKeyRow, 'created_at'>;

export function listCryptoKeys(db: Db): Promise<CryptoKeyRow[]> {
  return db
    .selectFrom('crypto_keys')
    .select(['id', 'kind', 'label', 'version', 'wrapped', 'root_id', 'created_at'])
    .orderBy('id')
    .execute();
}

/** Inserts rows whose id is new; rows another process inserted first are left as they are. */
export async function insertCryptoKeys(db: Db, rows: readonly NewCryptoKeyRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('crypto_keys')
    .values([...rows])
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Compare-and-set: re-wraps a row only if it is still wrapped by `fromRoot`; false if someone else did. */
export async function rewrapCryptoKey(
  db: Db,
  row: { id: string; fromRoot: Buffer; wrapped: Buffer; rootId: Buffer },
): Promise<boolean> {
  const result = await db
    .updateTable('crypto_keys')
    .set({ wrapped: row.wrapped, root_id: row.rootId })
    .where('id', '=', row.id)
    .where('root_id', '=', row.fromRoot)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteCryptoKeys(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('crypto_keys')
    .where('id', 'in', [...ids])
    .execute();
}
