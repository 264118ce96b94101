import { createCipheriv, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLIND_INDEX_VERSION, createBlindIndex, INDEX_LABELS, singleVersionKeys } from '../src/crypto/blind-index.js';
import { CryptoConfigError, SealedValueError } from '../src/crypto/errors.js';
import { Keyring, type SealContext } from '../src/crypto/keyring.js';
import { createKeySource, parseRootKey } from '../src/crypto/root-key.js';

const keys = createKeySource(randomBytes(32));
const keyring = () => new Keyring(keys, 'k1');

const context = fc.record({
  companyId: fc.uuid(),
  recordId: fc.uuid(),
  label: fc.constantFrom(...INDEX_LABELS, 'victim.email', 'guestInfo.phone'),
});
const plaintext = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

function failure(fn: () => unknown): SealedValueError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SealedValueError) return error;
    throw error;
  }
  throw new Error('expected the token not to open');
}

describe('seal and open', () => {
  it('round-trips any text in any context', () => {
    const ring = keyring();
    fc.assert(
      fc.property(plaintext, context, (clear, ctx) => {
        expect(ring.open(ring.seal(clear, ctx), ctx)).toBe(clear);
      }),
      { numRuns: 2000 },
    );
  });

  it('makes compact URL-safe tokens naming the version and key, with a fresh nonce each time', () => {
    const ring = keyring();
    const ctx = { companyId: 'c', recordId: 'r', label: 'bvn' };
    const a = ring.seal('22123456789', ctx);
    const b = ring.seal('22123456789', ctx);
    expect(a).toMatch(/^v2\.k1\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    // 12-byte nonce + 32 bytes (11 padded to the smallest bucket) + 16-byte tag = 60 bytes = 80 base64url characters.
    expect(a.length).toBe('v2.k1.'.length + 80);
    expect(encodeURIComponent(a)).toBe(a);
  });

  it('never repeats a nonce, across refills of the random pool', () => {
    const ring = keyring();
    const ctx = { companyId: 'c', recordId: 'r', label: 'bvn' };
    const nonces = new Set<string>();
    for (let i = 0; i < 3000; i++)
      nonces.add(Buffer.from(ring.seal('same', ctx).slice(6), 'base64url').subarray(0, 12).toString('hex'));
    expect(nonces.size).toBe(3000);
  });

  it('refuses a token moved to another company, record or label', () => {
    const ring = keyring();
    const field = fc.constantFrom<'companyId' | 'recordId' | 'label'>('companyId', 'recordId', 'label');
    fc.assert(
      fc.property(plaintext, context, field, fc.string({ minLength: 1, maxLength: 40 }), (clear, ctx, which, other) => {
        fc.pre(other !== ctx[which]);
        const token = ring.seal(clear, ctx);
        const error = failure(() => ring.open(token, { ...ctx, [which]: other }));
        expect(error.reason).toBe('authentication-failed');
      }),
      { numRuns: 1000 },
    );
  });

  it('binds a token to its identifier row: swapped into another row of the same report and label it does not open', () => {
    const ring = keyring();
    const ctx = { companyId: 'c', recordId: 'r', label: 'phone' };
    const first = ring.seal('+2348031234567', { ...ctx, rowId: 'row-1' });
    expect(ring.open(first, { ...ctx, rowId: 'row-1' })).toBe('+2348031234567');
    expect(failure(() => ring.open(first, { ...ctx, rowId: 'row-2' })).reason).toBe('authentication-failed');
    expect(failure(() => ring.open(first, ctx)).reason).toBe('authentication-failed');
    // A token sealed before rows were bound still opens in its row (rotation re-seals it bound).
    const unbound = ring.seal('+2348031234567', ctx);
    expect(ring.open(unbound, { ...ctx, rowId: 'row-1' })).toBe('+2348031234567');
  });

  it('refuses altered, truncated, relabelled and foreign tokens with a typed error, never garbage', () => {
    const ring = keyring();
    const ctx = { companyId: 'c1', recordId: 'r1', label: 'email' };
    const token = ring.seal('john.doe@example.com', ctx);
    const body = token.slice('v2.k1.'.length);
    fc.assert(
      fc.property(
        fc.nat({ max: body.length - 1 }),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
        (at, c) => {
          const altered = `v2.k1.${body.slice(0, at)}${c}${body.slice(at + 1)}`;
          fc.pre(Buffer.from(altered.slice(6), 'base64url').compare(Buffer.from(body, 'base64url')) !== 0);
          expect(failure(() => ring.open(altered, ctx)).reason).toBe('authentication-failed');
        },
      ),
    );
    expect(failure(() => ring.open(token.replace('v2.k1.', 'v2.k2.'), ctx)).reason).toBe('authentication-failed');
    // The version is bound too: a padded token relabelled as an old unpadded one does not open.
    expect(failure(() => ring.open(token.replace('v2.', 'v1.'), ctx)).reason).toBe('authentication-failed');
    expect(failure(() => ring.open(token.replace('v2.', 'v3.'), ctx)).reason).toBe('malformed');
    expect(failure(() => ring.open(token.slice(0, 20), ctx)).reason).toBe('malformed');
    expect(failure(() => ring.open('john.doe@example.com', ctx)).reason).toBe('malformed');
    expect(failure(() => ring.open('', ctx)).reason).toBe('malformed');
    const foreign = new Keyring(createKeySource(randomBytes(32)), 'k1');
    expect(failure(() => foreign.open(token, ctx)).reason).toBe('authentication-failed');
    expect(failure(() => foreign.open(token, ctx)).message).not.toContain('john');
  });

  it('opens old tokens after the primary key changes, and seals new ones under the new key id', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(plaintext, context), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 2, max: 50 }),
        (values, next) => {
          const ring = keyring();
          const before = values.map(([clear, ctx]) => ring.seal(clear, ctx));
          ring.setPrimary(`k${next}`);
          values.forEach(([clear, ctx], i) => {
            expect(ring.open(before[i] as string, ctx)).toBe(clear);
            const after = ring.seal(clear, ctx);
            expect(Keyring.keyIdOf(after)).toBe(`k${next}`);
            expect(ring.open(after, ctx)).toBe(clear);
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('derived keys', () => {
  it('derives a distinct key per key id, per purpose and per index label', () => {
    const all = [
      keys.encryptionKey('k1'),
      keys.encryptionKey('k2'),
      keys.keyCheck('k1'),
      keys.keyCheck('k2'),
      ...INDEX_LABELS.map((label) => keys.indexKey(label)),
    ].map((key) => key.toString('hex'));
    expect(new Set(all).size).toBe(all.length);
    for (const key of all) expect(key).toHaveLength(64);
    // Deterministic from the root key (so old key ids keep deriving), different under another root.
    const root = randomBytes(32);
    expect(createKeySource(root).encryptionKey('k1')).toEqual(createKeySource(Buffer.from(root)).encryptionKey('k1'));
    expect(createKeySource(root).encryptionKey('k1')).not.toEqual(keys.encryptionKey('k1'));
    expect(createKeySource(root).encryptionKey('k1')).not.toEqual(root);
  });

  it('gives the same blind index for the same label and value, 32 bytes, and different ones across labels', () => {
    const index = createBlindIndex(singleVersionKeys(keys.indexKey));
    expect(BLIND_INDEX_VERSION).toBe(1);
    expect(index('bvn', '22123456789')).toHaveLength(32);
    expect(index('bvn', '22123456789')).toEqual(index('bvn', '22123456789'));
    expect(index('bvn', '22123456789')).not.toEqual(index('nin', '22123456789'));
    expect(index('bvn', '22123456789')).not.toEqual(index('bvn', '22123456788'));
    // Another root key, another index: a leaked index table cannot be matched against another deployment.
    expect(createBlindIndex(singleVersionKeys(createKeySource(randomBytes(32)).indexKey))('bvn', '22123456789')).not.toEqual(
      index('bvn', '22123456789'),
    );
  });
});

describe('the root key', () => {
  it('is base64 (or base64url) of exactly 32 bytes', () => {
    const key = randomBytes(32);
    expect(parseRootKey(key.toString('base64'), 'X')).toEqual(key);
    expect(parseRootKey(` ${key.toString('base64url')}\n`, 'X')).toEqual(key);
    expect(() => parseRootKey(randomBytes(31).toString('base64'), 'REDFLAG_MASTER_KEY')).toThrow(CryptoConfigError);
    expect(() => parseRootKey(randomBytes(33).toString('base64'), 'REDFLAG_MASTER_KEY')).toThrow(
      /REDFLAG_MASTER_KEY must be base64 of exactly 32 bytes/,
    );
    expect(() => parseRootKey('not a key', 'REDFLAG_MASTER_KEY')).toThrow(/must be base64 of exactly 32 bytes/);
    expect(() => parseRootKey(key.toString('hex'), 'REDFLAG_MASTER_KEY')).toThrow(/must be base64 of exactly 32 bytes/);
  });
});

describe('padding', () => {
  const ctx = { companyId: 'c', recordId: 'r', label: 'account_name' };

  it("gives every value up to 31 bytes a token of one length, so it tells nothing of another company's value", () => {
    const ring = keyring();
    const lengths = new Set(Array.from({ length: 31 }, (_, n) => ring.seal('x'.repeat(n + 1), ctx).length));
    expect([...lengths]).toEqual(['v2.k1.'.length + 80]);
    // Longer values fall into the next power-of-two bucket, and still round-trip (trailing zeros included).
    const long = ring.seal(`${'y'.repeat(40)}\u0000\u0000`, ctx);
    expect(long.length).toBe('v2.k1.'.length + Math.ceil(((12 + 64 + 16) * 4) / 3));
    expect(ring.open(long, ctx)).toBe(`${'y'.repeat(40)}\u0000\u0000`);
  });

  it('still opens the unpadded v1 tokens sealed before it', () => {
    const old = sealV1(keys.encryptionKey('k1'), 'Adaeze Okafor', ctx);
    expect(old).toMatch(/^v1\.k1\./);
    expect(keyring().open(old, ctx)).toBe('Adaeze Okafor');
  });
});

/** A token as sealed before padding: no bucket, version v1 in the associated data. */
function sealV1(key: Buffer, clear: string, { companyId, recordId, label }: SealContext): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(JSON.stringify(['v1', 'k1', companyId, recordId, label])));
  const body = Buffer.concat([nonce, cipher.update(clear, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.k1.${body.toString('base64url')}`;
}
