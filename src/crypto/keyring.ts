import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { SealedValueError } from './errors.js';
import type { KeySource } from './root-key.js';

/** What a sealed value is bound to: a token copied to another company, record or label fails to open. */
export interface SealContext {
  companyId: string;
  /** The row the value belongs to (a report's id for its identifiers). */
  recordId: string;
  /** The identifier label, or the field name for other sealed values (e.g. `victim.email`). */
  label: string;
}

export const TOKEN_VERSION = 'v1';
export const KEY_ID_PATTERN = /^k[1-9]\d{0,8}$/;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const TOKEN_SHAPE = /^v1\.(k[1-9]\d{0,8})\.([A-Za-z0-9_-]+)$/;

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

export function keyIdNumber(keyId: string): number {
  return Number(keyId.slice(1));
}

/**
 * AES-256-GCM with a 12-byte random nonce per value. A token is `v1.<keyId>.<base64url(nonce ‖
 * ciphertext ‖ tag)>`: compact, URL-safe, and it names its key so keys can rotate. The associated
 * data binds version, key id, company, record and label. Synchronous: a seal measured about 8 µs,
 * nearly all of it node:crypto's cipher set-up; WebCrypto's async API would add a thread-pool hop
 * per value. Random nonces keep a key safe for 2^32 seals, far beyond a registry's volume, and
 * rotation starts a fresh key.
 */
export class Keyring {
  readonly #keys: KeySource;
  readonly #cache = new Map<string, Buffer>();
  #primaryKeyId: string;

  constructor(keys: KeySource, primaryKeyId: string) {
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

  /** The value stored beside a key id so that a wrong root key is recognised. */
  keyCheck(keyId: string): Buffer {
    return this.#keys.keyCheck(keyId);
  }

  seal(plaintext: string, context: SealContext): string {
    const keyId = this.#primaryKeyId;
    const nonce = freshNonce();
    const cipher = createCipheriv('aes-256-gcm', this.#key(keyId), nonce);
    cipher.setAAD(associatedData(keyId, context));
    const body = Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${TOKEN_VERSION}.${keyId}.${body.toString('base64url')}`;
  }

  /** The clear value, or a SealedValueError: malformed, or not authentic in this context. */
  open(token: string, context: SealContext): string {
    const match = typeof token === 'string' ? TOKEN_SHAPE.exec(token) : null;
    if (!match) throw new SealedValueError('malformed', 'Not a sealed value of a version this service reads');
    const keyId = match[1] as string;
    const body = Buffer.from(match[2] as string, 'base64url');
    if (body.length < NONCE_BYTES + TAG_BYTES) throw new SealedValueError('malformed', 'Sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.#key(keyId), body.subarray(0, NONCE_BYTES));
    decipher.setAAD(associatedData(keyId, context));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    try {
      const clear = Buffer.concat([decipher.update(body.subarray(NONCE_BYTES, body.length - TAG_BYTES)), decipher.final()]);
      return clear.toString('utf8');
    } catch {
      throw new SealedValueError(
        'authentication-failed',
        'Sealed value does not open: it belongs to another company, record or label, was altered, or was sealed under another root key',
      );
    }
  }

  /** The key id a token names, without opening it. */
  static keyIdOf(token: string): string | undefined {
    return TOKEN_SHAPE.exec(token)?.[1];
  }

  // Any well-formed key id derives, not only those known at start-up: an instance that has not yet
  // seen a rotation still opens values the rotation re-sealed.
  #key(keyId: string): Buffer {
    let key = this.#cache.get(keyId);
    if (key === undefined) {
      key = this.#keys.encryptionKey(keyId);
      this.#cache.set(keyId, key);
    }
    return key;
  }
}

function associatedData(keyId: string, { companyId, recordId, label }: SealContext): Buffer {
  return Buffer.from(JSON.stringify([TOKEN_VERSION, keyId, companyId, recordId, label]), 'utf8');
}
