import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, UploadsTable } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export type UploadRow = Selectable<UploadsTable>;

export async function insertUpload(
  db: Db,
  row: {
    id: string;
    company_id: string;
    content_type: string;
    size: number;
    sha256: Buffer;
    sha256_keyed: boolean;
    storage_key: string;
  },
): Promise<UploadRow> {
  return db.insertInto('uploads').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function deleteUpload(db: Db, id: string): Promise<void> {
  await db.deleteFrom('uploads').where('id', '=', id).execute();
}

/** One upload; `companyId` restricts it to that company's own. */
export function findUpload(db: Db, id: string, companyId?: string): Promise<UploadRow | undefined> {
  let query = db.selectFrom('uploads').selectAll().where('id', '=', id);
  if (companyId !== undefined) query = query.where('company_id', '=', companyId);
  return query.executeTakeFirst();
}

/**
 * Who owns the uploads and what holds them. With `lock` (inside the attaching transaction) the rows
 * stay locked until it ends, so two reports cannot both claim one.
 */
export function findUploadOwners(db: Db, ids: readonly string[], lock = false) {
  if (ids.length === 0) return Promise.resolve([]);
  const query = db
    .selectFrom('uploads')
    .select(['id', 'company_id', 'record_id'])
    .where('id', 'in', [...ids]);
  return (lock ? query.forUpdate() : query).execute();
}

/** Attaches the uploads to a record and detaches the ones it held before that are no longer listed. */
export async function setRecordUploads(trx: Transaction<Database>, recordId: string, ids: readonly string[]): Promise<void> {
  let release = trx.updateTable('uploads').set({ record_id: null, orphaned_at: sql`now()` }).where('record_id', '=', recordId);
  if (ids.length > 0) release = release.where('id', 'not in', [...ids]);
  await release.execute();
  if (ids.length > 0) {
    await trx
      .updateTable('uploads')
      .set({ record_id: recordId, orphaned_at: null })
      .where('id', 'in', [...ids])
      .execute();
  }
}

/**
 * Deletes up to `limit` uploads attached to nothing for longer than `olderThanHours`, returning their
 * storage keys. An upload being attached at the same moment is locked by that transaction; this
 * delete then re-checks it after the lock and leaves it alone.
 */
export async function deleteOrphanedUploads(db: Db, olderThanHours: number, limit: number): Promise<string[]> {
  const rows = await db
    .deleteFrom('uploads')
    .where(
      'id',
      'in',
      db
        .selectFrom('uploads')
        .select('id')
        .where('orphaned_at', '<', sql<Date>`now() - make_interval(hours => ${olderThanHours})`)
        .limit(limit),
    )
    .where('orphaned_at', '<', sql<Date>`now() - make_interval(hours => ${olderThanHours})`)
    .returning('storage_key')
    .execute();
  return rows.map((r) => r.storage_key);
}

/** Deletes the uploads attached to these records, returning their storage keys. */
export async function deleteRecordUploads(db: Db, recordIds: readonly string[]): Promise<string[]> {
  const rows = await db
    .deleteFrom('uploads')
    .where('record_id', 'in', [...recordIds])
    .returning('storage_key')
    .execute();
  return rows.map((r) => r.storage_key);
}

/** Uploads whose `sha256` is still the plain hash (stored before hashes were keyed). */
export function findUnkeyedHashes(db: Db, limit: number) {
  return db.selectFrom('uploads').select(['id', 'sha256']).where('sha256_keyed', '=', false).limit(limit).execute();
}

/** Replaces a plain hash by its keyed form, unless another instance did first. */
export async function storeKeyedHash(db: Db, id: string, keyed: Buffer): Promise<void> {
  await db
    .updateTable('uploads')
    .set({ sha256: keyed, sha256_keyed: true })
    .where('id', '=', id)
    .where('sha256_keyed', '=', false)
    .execute();
}
