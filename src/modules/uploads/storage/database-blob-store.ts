import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { BlobStore } from './blob-store.js';

/**
 * node-postgres copies every parameter into the wire message of its statement (and PGlite copies
 * that message into its WebAssembly memory), so one insert of a whole file would make a second
 * whole copy while it is sent. In slices that copy is at most one slice. Measured with ten 5 MiB
 * uploads at once (bench/upload-memory.mjs) the peak hardly moved, because the request's socket
 * chunks awaiting garbage collection dominate it; the slices bound the worst case (slow database,
 * a larger REDFLAG_UPLOAD_MAX_BYTES) rather than the usual one.
 */
export const SLICE_BYTES = 1024 * 1024;

/** Bytes in the `upload_blobs` table, one row per slice, written in one transaction. */
export function createDatabaseBlobStore(db: Kysely<Database>, sliceBytes = SLICE_BYTES): BlobStore {
  return {
    async put(key, bytes) {
      await db.transaction().execute(async (trx) => {
        for (let seq = 0; seq * sliceBytes < bytes.length; seq++) {
          // A view into the caller's buffer, not a copy; sent as a binary parameter.
          const data = bytes.subarray(seq * sliceBytes, (seq + 1) * sliceBytes);
          await trx.insertInto('upload_blobs').values({ key, seq, data }).execute();
        }
      });
    },
    async get(key) {
      const rows = await db.selectFrom('upload_blobs').select('data').where('key', '=', key).orderBy('seq').execute();
      return rows.length === 0 ? undefined : Buffer.concat(rows.map((r) => r.data));
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
