import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API keys follow GitHub's token design: a recognisable prefix (so secret scanners can find a
 * leaked key), random characters, and a checksum (so a mistyped key is refused without a
 * database lookup).
 *
 *   rf_ + 30 base62 characters from a CSPRNG (≈178.6 bits) + 6 base62 characters of CRC32(rf_ + random)
 */
export const KEY_PREFIX = 'rf_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
/** Shown in lists so people can tell their keys apart; 7 random characters are far from enough to guess the rest. */
export const DISPLAY_PREFIX_LENGTH = 10;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(body: string): string {
  // 62^6 > 2^32, so six characters hold every CRC32 value.
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}

/** A new random key. randomInt draws without modulo bias. */
export function generateApiKey(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(62)];
  const body = KEY_PREFIX + random;
  return body + checksum(body);
}

/** True when the text has the key's shape and its checksum matches: a cheap test before any lookup. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (candidate.length !== KEY_LENGTH || !SHAPE.test(candidate)) return false;
  const body = candidate.slice(0, KEY_LENGTH - CHECKSUM_LENGTH);
  return checksum(body) === candidate.slice(KEY_LENGTH - CHECKSUM_LENGTH);
}

/** What is stored and looked up instead of the key. */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
