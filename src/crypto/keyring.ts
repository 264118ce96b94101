import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { SealedValueError } from './errors.js';

/** What a sealed value is bound to: a token copied to another company, record or label fails to open. */
export interface SealContext {
  companyId: string;
  /** The row the value belongs to (a report's id for its identifiers). */
  recordId: string;
  /** The identifier label, or the field name for other sealed values (e.g. `victim.email`). */
  label: string;
  /**
   * The identifier row (`report_identifiers.id`): two tokens of one report and label cannot be
   * swapped. Tokens sealed before it was bound still open (and are bound when rotation re-seals them).
   */
  rowId?: string | undefined;
}

/** New seals: `v2` pads the clear value to a bucket first. `v1` tokens (unpadded) still open. */
export const TOKEN_VERSION = 'v2';
export const KEY_ID_PATTERN = /^k[1-9]\d{0,8}$/;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const TOKEN_SHAPE = /^(v1|v2)\.(k[1-9]\d{0,8})\.([A-Za-z0-9_-]+)$/;

/** The smallest bucket: every identifier but a long name or e-mail fits, so their tokens are alike. */
const MIN_PADDED_BYTES = 32;

/**
 * ISO/IEC 7816-4 padding to the next power of two (at least 32 bytes): one 0x80 byte, then zeros.
 * A token's length then tells only the bucket, not the length of another company's clear value.
 */
function pad(clear: Buffer): Buffer {
  let size = MIN_PADDED_BYTES;
  while (size < clear.length + 1) size *= 2;
  const padded = Buffer.alloc(size);
  clear.copy(padded);
  padded[clear.length] = 0x80;
  return padded;
}

function unpad(padded: Buffer): Buffer | undefined {
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  return end >= 0 && padded[end] === 0x80 ? padded.subarray(0, end) : undefined;
}

/**
 * Nonces are cut from a buffer filled by the CSPRNG 4 KiB at a time: one randomBytes(12) call costs
 * about 5 µs here, a quarter of a seal. Each slice is used once; the buffer is refilled when spent.
 */
const NONCE_POOL = Buffer.alloc(NONCE_BYTES * 341);
let noncePoolOffset = NONCE_POOL.length;

function freshNonce(): Buffer {
  if (noncePoolOffset + NONCE_BYTES > NONCE_POOL.length) {
    randomFillSync(NONCE_POOL);
    noncePoolOffset = 0;
  }
  const nonce = Buffer.from(NONCE_POOL.subarray(noncePoolOffset, noncePoolOffset + NONCE_BYTES));
  noncePoolOffset += NONCE_BYTES;
  return nonce;
}

/** Where the keyring finds the data key of a key id (src/crypto/key-store.ts: unwrapped stored keys). */
export interface DataKeySource {
  encryptionKey(keyId: string): Buffer;
}

export function keyIdNumber(keyId: string): number {
  return Number(keyId.slice(1));
}

/**
 * AES-256-GCM with a 12-byte random nonce per value. A token is `v2.<keyId>.<base64url(nonce ‖
 * ciphertext ‖ tag)>`: compact, URL-safe, and it names its key so keys can rotate. The associated
 * data binds version, key id, company, record, label and (for identifiers) the identifier row. Synchronous: a seal measured about 8 µs,
 * nearly all of it node:crypto's cipher set-up; WebCrypto's async API would add a thread-pool hop
 * per value. Random nonces keep a key safe for 2^32 seals, far beyond a registry's volume, and
 * rotation starts a fresh key.
 */
export class Keyring {
  readonly #keys: DataKeySource;
  readonly #cache = new Map<string, Buffer>();
  readonly #seals = new Map<string, number>();
  #primaryKeyId: string;

  constructor(keys: DataKeySource, primaryKeyId: string) {
    if (!KEY_ID_PATTERN.test(primaryKeyId)) throw new Error(`Invalid key id ${primaryKeyId}`);
    this.#keys = keys;
    this.#primaryKeyId = primaryKeyId;
  }

  /** The key new values are sealed with. */
  get primaryKeyId(): string {
    return this.#primaryKeyId;
  }

  setPrimary(keyId: string): void {
    if (!KEY_ID_PATTERN.test(keyId)) throw new Error(`Invalid key id ${keyId}`);
    this.#primaryKeyId = keyId;
  }

  /** Values sealed by this process, per key id (`/metrics`: a key's seals are what bounds its life). */
  sealCounts(): ReadonlyMap<string, number> {
    return this.#seals;
  }

  seal(plaintext: string, context: SealContext): string {
    const keyId = this.#primaryKeyId;
    this.#seals.set(keyId, (this.#seals.get(keyId) ?? 0) + 1);
    const nonce = freshNonce();
    const cipher = createCipheriv('aes-256-gcm', this.#key(keyId), nonce);
    cipher.setAAD(associatedData(TOKEN_VERSION, keyId, context));
    const padded = pad(Buffer.from(plaintext, 'utf8'));
    const body = Buffer.concat([nonce, cipher.update(padded), cipher.final(), cipher.getAuthTag()]);
    return `${TOKEN_VERSION}.${keyId}.${body.toString('base64url')}`;
  }

  /** The clear value, or a SealedValueError: malformed, or not authentic in this context. */
  open(token: string, context: SealContext): string {
    const match = typeof token === 'string' ? TOKEN_SHAPE.exec(token) : null;
    if (!match) throw new SealedValueError('malformed', 'Not a sealed value of a version this service reads');
    const version = match[1] as string;
    const keyId = match[2] as string;
    const where = { keyId, companyId: context.companyId, recordId: context.recordId, label: context.label };
    const body = Buffer.from(match[3] as string, 'base64url');
    if (body.length < NONCE_BYTES + TAG_BYTES) throw new SealedValueError('malformed', 'Sealed value is truncated', where);
    let key: Buffer;
    try {
      key = this.#key(keyId);
    } catch (error) {
      if (error instanceof SealedValueError) throw new SealedValueError(error.reason, error.message, where);
      throw error;
    }
    const clear =
      decrypt(key, body, associatedData(version, keyId, context)) ??
      // A token sealed before values were bound to their row opens without it, until rotation re-seals it.
      (context.rowId !== undefined
        ? decrypt(key, body, associatedData(version, keyId, { ...context, rowId: undefined }))
        : undefined);
    if (clear === undefined) {
      throw new SealedValueError(
        'authentication-failed',
        'Sealed value does not open: it belongs to another company, record or label, was altered, or was sealed under another root key',
        where,
      );
    }
    if (version === 'v1') return clear.toString('utf8');
    const unpadded = unpad(clear);
    if (!unpadded) throw new SealedValueError('malformed', 'Sealed value has no valid padding', where);
    return unpadded.toString('utf8');
  }

  /** The key id a token names, without opening it. */
  static keyIdOf(token: string): string | undefined {
    return TOKEN_SHAPE.exec(token)?.[2];
  }

  // A key id this process has not unwrapped is a SealedValueError('unknown-key'): `crypto rotate`
  // waits for running instances to re-read the key table before it seals under a new key.
  #key(keyId: string): Buffer {
    let key = this.#cache.get(keyId);
    if (key === undefined) {
      key = this.#keys.encryptionKey(keyId);
      this.#cache.set(keyId, key);
    }
    return key;
  }
}

function associatedData(version: string, keyId: string, { companyId, recordId, label, rowId }: SealContext): Buffer {
  const bound = [version, keyId, companyId, recordId, label];
  return Buffer.from(JSON.stringify(rowId === undefined ? bound : [...bound, rowId]), 'utf8');
}

function decrypt(key: Buffer, body: Buffer, aad: Buffer): Buffer | undefined {
  const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, NONCE_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(NONCE_BYTES, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
