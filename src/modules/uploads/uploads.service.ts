import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { isUuid } from '../ids.js';
import { type AcceptedType, checkStructure, EXTENSIONS, SNIFF_BYTES, sniffContentType } from './content-type.js';
import type { BlobStore } from './storage/blob-store.js';
import type { UploadOrigin, UploadUrls } from './upload-urls.js';
import * as repo from './uploads.repository.js';

/** A file read from a request: its bytes once, with what was learnt while reading them. */
export interface ReceivedFile {
  bytes: Buffer;
  size: number;
  sha256: Buffer;
  contentType: AcceptedType;
}

export interface UploadView {
  id: string;
  url: string;
  contentType: AcceptedType;
  size: number;
  sha256: string;
}

/** An upload not attached to a report for this long is removed. */
export const ORPHAN_HOURS = 24;
const SWEEP_BATCH = 500;
/** Capacity for a file of unknown length; it doubles as needed, up to the limit. */
const INITIAL_BUFFER_BYTES = 256 * 1024;

export function createUploadsService(deps: {
  db: Kysely<Database>;
  store: BlobStore;
  urls: UploadUrls;
  maxBytes: number;
  /** Keys the stored hash of each file: an unkeyed hash would confirm a guessed file. */
  evidenceKey: Buffer;
}) {
  const { db, store, urls, maxBytes } = deps;
  const keyedHash = (sha256: Buffer) => createHmac('sha256', deps.evidenceKey).update(sha256).digest();

  const tooLarge = () =>
    new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${(maxBytes / 1_000_000).toFixed(1)} MB, the most a file may be`);

  /** The stored row holds only the keyed hash; the file's own SHA-256 is shown to its uploader. */
  function view(row: repo.UploadRow, origin: UploadOrigin, sha256: Buffer): UploadView {
    return {
      id: row.id,
      url: urls.reference(origin, row.id),
      contentType: row.content_type as AcceptedType,
      size: row.size,
      sha256: sha256.toString('hex'),
    };
  }

  return {
    /** The 413 for a file over the limit, however it was noticed. */
    tooLarge,

    /**
     * Reads a file as it streams in: hashes and counts each chunk and copies it into one buffer that
     * grows as bytes arrive (never sized from the sender's Content-Length, or a slow sender could
     * reserve 5 MiB with a few bytes). Its type is decided by its first bytes, so an executable is
     * refused before the rest is read; past `maxBytes` the reading stops (the caller's stream
     * delivers at most `maxBytes + 1`); a file whose structure does not hold up is refused at the end.
     */
    async receive(stream: AsyncIterable<Buffer>): Promise<ReceivedFile> {
      const hash = createHash('sha256');
      let buffer = Buffer.allocUnsafe(Math.min(maxBytes, INITIAL_BUFFER_BYTES));
      let size = 0;
      let contentType: AcceptedType | undefined;
      for await (const chunk of stream) {
        if (size + chunk.length > maxBytes) throw tooLarge();
        if (size + chunk.length > buffer.length) {
          const grown = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(size + chunk.length, buffer.length * 2)));
          buffer.copy(grown, 0, 0, size);
          buffer = grown;
        }
        chunk.copy(buffer, size);
        size += chunk.length;
        hash.update(chunk);
        if (contentType === undefined && size >= SNIFF_BYTES) contentType = sniff(buffer.subarray(0, size));
      }
      if (size === 0) throw AppError.validation([{ field: 'file', message: 'is empty' }]);
      contentType ??= sniff(buffer.subarray(0, size));
      const bytes = buffer.subarray(0, size);
      const structure = await checkStructure(contentType, bytes);
      if (!structure.ok) throw new AppError('UNSUPPORTED_MEDIA_TYPE', structure.message);
      return { bytes, size, sha256: hash.digest(), contentType };
    },

    /** Stores a received file as an upload of `companyId`, attached to nothing yet. */
    async save(companyId: string, origin: UploadOrigin, file: ReceivedFile): Promise<UploadView> {
      const id = randomUUID();
      // The metadata row first: if the bytes fail to store it is removed, and if the process dies
      // in between, the sweeper removes the row like any unattached upload. No bytes are left behind.
      const row = await repo.insertUpload(db, {
        id,
        company_id: companyId,
        content_type: file.contentType,
        size: file.size,
        sha256: keyedHash(file.sha256),
        sha256_keyed: true,
        storage_key: `${id}.${EXTENSIONS[file.contentType]}`,
      });
      try {
        await store.put(row.storage_key, file.bytes, file.contentType);
      } catch (error) {
        await repo.deleteUpload(db, id);
        throw error;
      }
      return view(row, origin, file.sha256);
    },

    /** A company's own upload, with a fresh download link; another company's is a 404. */
    async describe(companyId: string, id: string) {
      const row = isUuid(id) ? await repo.findUpload(db, id, companyId) : undefined;
      const bytes = row ? await store.get(row.storage_key) : undefined;
      if (!row || !bytes) throw AppError.notFound('Upload not found');
      return {
        // Hashed again from the stored bytes: the row keeps only the keyed hash.
        ...view(row, 'external', createHash('sha256').update(bytes).digest()),
        downloadUrl: urls.download(row.id),
        attached: row.record_id !== null,
        createdAt: row.created_at.toISOString(),
      };
    },

    /** Keys the hashes of uploads stored before hashes were keyed; run at start, idempotent across instances. */
    async keyLegacyHashes(): Promise<number> {
      let keyed = 0;
      for (;;) {
        const rows = await repo.findUnkeyedHashes(db, SWEEP_BATCH);
        for (const row of rows) await repo.storeKeyedHash(db, row.id, keyedHash(Buffer.from(row.sha256)));
        keyed += rows.length;
        if (rows.length < SWEEP_BATCH) return keyed;
      }
    },

    /** The file behind a download link whose signature the caller has checked. */
    async open(id: string): Promise<{ contentType: string; fileName: string; bytes: Buffer }> {
      const row = isUuid(id) ? await repo.findUpload(db, id) : undefined;
      const bytes = row ? await store.get(row.storage_key) : undefined;
      if (!row || !bytes) throw AppError.notFound('File not found');
      return { contentType: row.content_type, fileName: row.storage_key, bytes };
    },

    /**
     * Deletes the files attached to these records (the public-report clean-up): their rows in the
     * caller's transaction, with the records (the database store's bytes go with them, by cascade);
     * then `bytes()`, once it committed, what a store outside the database holds.
     */
    async detachFromRecords(trx: Kysely<Database>, recordIds: readonly string[]) {
      const keys = recordIds.length === 0 ? [] : await repo.deleteRecordUploads(trx, recordIds);
      return { count: keys.length, bytes: () => store.delete(keys) };
    },

    /** Removes uploads attached to nothing for 24 hours, metadata first, then their bytes. */
    async sweep(): Promise<number> {
      let removed = 0;
      for (;;) {
        const keys = await repo.deleteOrphanedUploads(db, ORPHAN_HOURS, SWEEP_BATCH);
        await store.delete(keys);
        removed += keys.length;
        if (keys.length < SWEEP_BATCH) return removed;
      }
    },
  };
}

export type UploadsService = ReturnType<typeof createUploadsService>;

function sniff(head: Buffer): AcceptedType {
  const sniffed = sniffContentType(head);
  if (!sniffed.ok) throw new AppError('UNSUPPORTED_MEDIA_TYPE', sniffed.message);
  return sniffed.type;
}
