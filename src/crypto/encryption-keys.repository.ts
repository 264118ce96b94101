import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface EncryptionKeyRow {
  id: string;
  is_primary: boolean;
  key_check: Buffer;
  created_at: Date;
  retired_at: Date | null;
  reencrypted_at: Date | null;
}

export function listEncryptionKeys(db: Db): Promise<EncryptionKeyRow[]> {
  return db
    .selectFrom('encryption_keys')
    .select(['id', 'is_primary', 'key_check', 'created_at', 'retired_at', 'reencrypted_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Inserts a key unless its id exists; false when another process got there first. */
export async function insertEncryptionKey(
  db: Db,
  key: { id: string; keyCheck: Buffer; isPrimary: boolean; reencrypted: boolean },
): Promise<boolean> {
  const inserted = await db
    .insertInto('encryption_keys')
    .values({
      id: key.id,
      key_check: key.keyCheck,
      is_primary: key.isPrimary,
      reencrypted_at: key.reencrypted ? new Date() : null,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Demotes the primary key, recording when; runs in the transaction that inserts its successor. */
export async function retirePrimaryKey(trx: Transaction<Database>, keyId: string): Promise<number> {
  const result = await trx
    .updateTable('encryption_keys')
    .set({ is_primary: false, retired_at: new Date() })
    .where('id', '=', keyId)
    .where('is_primary', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function markKeyReencrypted(db: Db, keyId: string): Promise<void> {
  await db.updateTable('encryption_keys').set({ reencrypted_at: new Date() }).where('id', '=', keyId).execute();
}
