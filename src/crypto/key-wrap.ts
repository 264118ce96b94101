import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The top of the key hierarchy. Nothing is encrypted with the root key itself: it yields a
 * key-encryption key (KEK) that wraps the stored keys, and a fingerprint naming which root wrapped a
 * row. Both are HKDF outputs, so neither reveals the root.
 */
export interface RootMaterial {
  /** 16 bytes; stored beside each wrapped row. */
  id: Buffer;
  kek: Buffer;
}

const HKDF_SALT = Buffer.from('redflag/hkdf/v1');
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function rootMaterial(root: Buffer): RootMaterial {
  return {
    id: Buffer.from(hkdfSync('sha256', root, HKDF_SALT, 'redflag/root-fingerprint/v1', 16)),
    kek: Buffer.from(hkdfSync('sha256', root, HKDF_SALT, 'redflag/kek/v1', 32)),
  };
}

/** AES-256-GCM under the KEK; the row id is the associated data, so a wrapped key moved to another row fails. */
export function wrapKey(kek: Buffer, rowId: string, key: Buffer): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek, nonce);
  cipher.setAAD(Buffer.from(`redflag/wrap/v1\n${rowId}`));
  return Buffer.concat([nonce, cipher.update(key), cipher.final(), cipher.getAuthTag()]);
}

/** The key, or undefined when the KEK is not the one that wrapped it (or the row was altered). */
export function unwrapKey(kek: Buffer, rowId: string, wrapped: Buffer): Buffer | undefined {
  if (wrapped.length < NONCE_BYTES + TAG_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', kek, wrapped.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(`redflag/wrap/v1\n${rowId}`));
  decipher.setAuthTag(wrapped.subarray(wrapped.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(wrapped.subarray(NONCE_BYTES, wrapped.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
