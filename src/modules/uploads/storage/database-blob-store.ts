import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { BlobStore } from './blob-store.js';

/**
 * Bytes in the `upload_blobs` table: one row, one bytea. node-postgres sends a Buffer parameter as
 * binary (no hex or base64 blow-up on the way in).
 */
export function createDatabaseBlobStore(db: Kysely<Database>): BlobStore {
  return {
    async put(key, bytes) {
      await db.insertInto('upload_blobs').values({ key, data: bytes }).execute();
    },
    async get(key) {
      const row = await db.selectFrom('upload_blobs').select('data').where('key', '=', key).executeTakeFirst();
      return row?.data;
    },
    async delete(keys) {
      if (keys.length > 0)
        await db
          .deleteFrom('upload_blobs')
          .where('key', 'in', [...keys])
          .execute();
    },
  };
}
