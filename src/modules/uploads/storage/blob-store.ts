/**
 * Where the bytes of evidence files live. The database store (the default, on both engines) keeps
 * them in `upload_blobs`, so every instance reads them and backups include them; an S3-compatible
 * store can implement the same three calls.
 */
export interface BlobStore {
  /** Stores the bytes under a new key; the caller never reuses a key. */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes, or undefined when nothing is stored under the key. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes the keys; keys that hold nothing are ignored. */
  delete(keys: readonly string[]): Promise<void>;
}
