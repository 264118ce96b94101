import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey, KEY_LENGTH } from '../src/modules/keys/keys.format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function decodeBase62(text: string): number {
  let n = 0;
  for (const c of text) n = n * 62 + BASE62.indexOf(c);
  return n;
}

describe('API key format', () => {
  it('is rf_ + 30 random base62 characters + a 6-character base62 CRC32 of what precedes it', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^rf_[0-9A-Za-z]{36}$/);
    expect(key).toHaveLength(KEY_LENGTH);
    // 30 base62 characters carry 30 · log2(62) ≈ 178.6 bits: at least the 128 API.md asks.
    expect(30 * Math.log2(62)).toBeGreaterThan(128);
    expect(decodeBase62(key.slice(-6))).toBe(crc32(key.slice(0, -6)));
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('never repeats and uses the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, generateApiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.flatMap((k) => [...k.slice(3, 33)]));
    expect(seen.size).toBe(62);
  });

  it('rejects any key with one character changed', () => {
    fc.assert(
      fc.property(fc.nat({ max: KEY_LENGTH - 1 }), fc.nat({ max: 61 }), (position, replacement) => {
        const key = generateApiKey();
        const original = key[position];
        const alphabet = position < 3 ? 'abcdefghijklmnopqrstuvwxyz_' : BASE62;
        const c = alphabet[replacement % alphabet.length] as string;
        fc.pre(c !== original);
        const changed = key.slice(0, position) + c + key.slice(position + 1);
        expect(isWellFormedApiKey(changed)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects the wrong shape: prefix, length, characters', () => {
    const key = generateApiKey();
    for (const bad of [
      '',
      'rf_',
      key.slice(0, -1),
      `${key}x`,
      `RF_${key.slice(3)}`,
      `sk_${key.slice(3)}`,
      `${key.slice(0, 10)}-${key.slice(11)}`,
    ]) {
      expect(isWellFormedApiKey(bad), bad).toBe(false);
    }
  });

  it('stores a 32-byte SHA-256 and shows only the first 10 characters', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(hashApiKey(key).equals(hashApiKey(key))).toBe(true);
    expect(displayPrefix(key)).toBe(key.slice(0, 10));
  });
});
