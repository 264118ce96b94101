import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CryptoConfigError } from './errors.js';

export const ROOT_KEY_BYTES = 32;
export const KEY_FILE_NAME = 'master.key';
/** HKDF salt: a fixed domain label (the root key is uniformly random, so no secret salt is needed). */
const HKDF_SALT = Buffer.from('redflag/hkdf/v1');
const CHECK_MESSAGE = Buffer.from('redflag key check v1');

const MIN_DISTINCT_BYTES = 16;
const BASE64_32_BYTES = /^[A-Za-z0-9+/_-]{43}=?$/;

/** Base64 (or base64url) of exactly 32 bytes, or a CryptoConfigError naming where it came from. */
export function parseRootKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (!BASE64_32_BYTES.test(trimmed)) {
    throw new CryptoConfigError(
      `${source} must be base64 of exactly 32 bytes (generate one with: npx redflag crypto new-master-key)`,
    );
  }
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== ROOT_KEY_BYTES) throw new CryptoConfigError(`${source} must be base64 of exactly 32 bytes`);
  // 32 random bytes have about 28 distinct values; fewer than 16 happens by chance with probability
  // below 2^-40, so such a key was typed or patterned (all zeros, "aaaa...", a repeated word).
  if (new Set(key).size < MIN_DISTINCT_BYTES) {
    throw new CryptoConfigError(
      `${source} has too little entropy (${new Set(key).size} distinct byte values in 32): use a random key from npx redflag crypto new-master-key`,
    );
  }
  return key;
}

export function newRootKeyText(): string {
  return randomBytes(ROOT_KEY_BYTES).toString('base64');
}

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, KEY_FILE_NAME);
}

/** The key file's key, or undefined when there is no file. */
export function readKeyFile(file: string): Buffer | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CryptoConfigError(`Cannot read the key file ${file}: ${(error as Error).message}`);
  }
  return parseRootKey(text, `The key file ${file}`);
}

/**
 * Creates the key file once, mode 0600. Written to a private temporary file first and then linked
 * into place, which fails if the name exists: the file appears whole or not at all, and an existing
 * key is never overwritten. If another process won the race its key is returned.
 */
export function createKeyFile(file: string): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    fs.writeSync(fd, `${newRootKeyText()}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  syncDirectory(path.dirname(file));
  return readKeyFile(file) as Buffer;
}

/**
 * Replaces a key file's contents at once (a private temporary file renamed over it): `rotate-root`
 * on the embedded default puts the new root where the next start reads it.
 */
export function replaceKeyFile(file: string, key: Buffer): void {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    fs.writeSync(fd, `${key.toString('base64')}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
  syncDirectory(path.dirname(file));
}

function syncDirectory(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the file itself is already synced.
  }
}

function hkdf(ikm: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, info, 32));
}

/**
 * The keys of a database from before envelope encryption (migration 0011), derived from the root
 * key with HKDF-SHA-256 under distinct labels. Used once per such database: start-up stores these
 * derivations wrapped (src/crypto/key-store.ts), so old tokens keep opening by key id after the
 * root changes. New databases get random keys instead.
 */
export interface KeySource {
  /** The AES-256-GCM data-encryption key of one key id. */
  encryptionKey(keyId: string): Buffer;
  /** A value stored beside each key id so a wrong root key is recognised at start-up. */
  keyCheck(keyId: string): Buffer;
  /** The HMAC key of one blind-index label, derived from the index root key. */
  indexKey(label: string): Buffer;
  /** The HMAC key that signs download URLs (attachments); used for nothing else. */
  urlSigningKey(): Buffer;
}

export function createKeySource(root: Buffer): KeySource {
  if (root.length !== ROOT_KEY_BYTES) throw new CryptoConfigError('The root key must be 32 bytes');
  const rootKey = Buffer.from(root);
  const indexRoot = hkdf(rootKey, 'redflag/blind-index');
  return {
    encryptionKey: (keyId) => hkdf(rootKey, `redflag/enc/${keyId}`),
    keyCheck: (keyId) =>
      createHmac('sha256', hkdf(rootKey, `redflag/key-check/${keyId}`))
        .update(CHECK_MESSAGE)
        .digest(),
    indexKey: (label) => hkdf(indexRoot, `redflag/blind-index/${label}`),
    urlSigningKey: () => hkdf(rootKey, 'redflag/url-signing/v1'),
  };
}
