import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBlindIndex, indexEntriesToStore, indexEntryToSearch, singleVersionKeys } from '../src/crypto/blind-index.js';
import { createKeySource } from '../src/crypto/root-key.js';
import {
  IDENTIFIER_LABELS,
  type IdentifierLabel,
  type NormalizedOk,
  normalizeIdentifier,
  shippedBankDirectory,
} from '../src/identifiers/normalize.js';
import { nubanCheckDigit } from '../src/identifiers/nuban.js';

const banks = shippedBankDirectory();
const blindIndex = createBlindIndex(singleVersionKeys(createKeySource(randomBytes(32)).indexKey));

function normalize(label: IdentifierLabel, raw: string): NormalizedOk {
  const result = normalizeIdentifier(label, raw, { banks, purpose: 'store' });
  if (!result.ok) throw new Error(`${label} ${JSON.stringify(raw)} rejected: ${result.message}`);
  return result;
}
const indexOf = (label: IdentifierLabel, raw: string) => blindIndex(label, normalize(label, raw).indexValue).toString('hex');

// --- generators of valid values, and of the ways people write them -------------------------------

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
const separator = fc.constantFrom('', '', ' ', '-', '  ', ' - ');
/** Inserts random separators between the characters of a string. */
const sprinkle = (text: string, seps: fc.Arbitrary<string>) =>
  fc.array(seps, { minLength: text.length, maxLength: text.length }).map((s) => [...text].map((c, i) => c + s[i]).join(''));
const padding = fc.constantFrom('', ' ', '  ', '\t', '\n ');

const NG_MOBILE_PREFIXES = [
  '703',
  '706',
  '803',
  '806',
  '810',
  '813',
  '814',
  '816',
  '903',
  '906',
  '913',
  '916',
  '802',
  '808',
  '812',
  '701',
  '708',
  '902',
  '907',
  '901',
  '912',
  '805',
  '807',
  '811',
  '815',
  '905',
  '915',
  '809',
  '817',
  '818',
  '908',
  '909',
];
const ngMobile = fc.tuple(fc.constantFrom(...NG_MOBILE_PREFIXES), digits(7)).map(([p, d]) => p + d);
const phoneSpelling = (national: string) =>
  fc.oneof(
    fc.constant(`0${national}`),
    fc.constant(`234${national}`),
    fc.constant(`+234${national}`),
    fc.constant(`+234 (0) ${national}`),
    fc.constant(`00234${national}`),
    fc.constant(`(0${national.slice(0, 3)}) ${national.slice(3)}`),
    fc.constant(`+234 ${national.slice(0, 3)} ${national.slice(3, 6)} ${national.slice(6)}`),
    sprinkle(`0${national}`, fc.constantFrom('', ' ', '-', '.')),
    sprinkle(`+234${national}`, fc.constantFrom('', ' ', '-')),
  );

const word = fc.stringMatching(/^[a-zà-öø-ÿ]{1,10}$/).filter((w) => w.length > 0);
const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((up) => [...text].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
const shuffled = <T>(items: T[]) => fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length });

const localPart = fc.stringMatching(/^[a-z0-9]([a-z0-9._+-]{0,20}[a-z0-9])?$/).filter((l) => !l.includes('..'));
const domain = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.constantFrom('com', 'ng', 'com.ng', 'org', 'io'))
  .map(([d, t]) => `${d}.${t}`);
const email = fc.tuple(localPart, domain).map(([l, d]) => `${l}@${d}`);

/** A NUBAN that passes the check digit at the given 3-digit bank code. */
const nubanFor = (code: string) => digits(9).map((serial) => serial + String(nubanCheckDigit(code, serial)));
const checkedBanks = [...banks.values()].filter(
  (b) => ['commercial', 'merchant', 'non-interest'].includes(b.category) && /^\d{3}$/.test(b.code),
);

/** Any string, including the valid shapes of every label, to test idempotency on whatever is accepted. */
const anyInput = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  ngMobile.chain(phoneSpelling),
  digits(11).chain((d) => sprinkle(d, separator)),
  email.chain(randomCase),
  fc
    .array(word, { minLength: 1, maxLength: 4 })
    .map((w) => w.join(' '))
    .chain(randomCase),
  fc.stringMatching(/^@?[A-Za-z0-9._-]{2,20}$/),
  fc.stringMatching(/^[A-Za-z0-9 -]{6,22}$/),
  fc.constantFrom(...checkedBanks).chain((b) => nubanFor(b.code).map((n) => `${n}_${b.slug}`)),
);

describe('normalisation (property-based)', () => {
  it('is idempotent for every label: a normalised value normalises to itself, with the same index value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...IDENTIFIER_LABELS), anyInput, (label, raw) => {
        const first = normalizeIdentifier(label, raw, { banks, purpose: 'store' });
        if (!first.ok) return;
        const second = normalizeIdentifier(label, first.value, { banks, purpose: 'store' });
        expect(second).toEqual(first);
      }),
      { numRuns: 3000 },
    );
  });

  it('is idempotent on account names made of letters whose case mappings are irregular', () => {
    const tricky = fc.constantFrom(..."aAßẞİıIiǅǄǆΣσςſﬀﬁKÅÉéŉΐάÿŸŁłĳﬆǰ̇̈ ,.-'’&1ẞ".split(''), 'ọ̀', 'Ω', 'ﾊﾟ', '①');
    fc.assert(
      fc.property(
        fc.array(tricky, { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')),
        (raw) => {
          const first = normalizeIdentifier('account_name', raw, { banks, purpose: 'store' });
          if (!first.ok) return;
          expect(normalizeIdentifier('account_name', first.value, { banks, purpose: 'store' })).toEqual(first);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...IDENTIFIER_LABELS),
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.constantFrom('store', 'search'),
        (label, raw, purpose) => {
          const result = normalizeIdentifier(label, raw, { banks, purpose: purpose as 'store' | 'search' });
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('maps every spelling of a Nigerian phone number to one E.164 value and one index', () => {
    fc.assert(
      fc.property(ngMobile, fc.integer(), fc.integer(), (national, a, b) => {
        const spellings = fc.sample(phoneSpelling(national), { numRuns: 2, seed: a ^ b });
        for (const spelling of spellings) {
          expect(normalize('phone', spelling).value).toBe(`+234${national}`);
          expect(indexOf('phone', spelling)).toBe(indexOf('phone', `+234${national}`));
        }
      }),
    );
    fc.assert(
      fc.property(
        ngMobile.chain((n) => fc.tuple(phoneSpelling(n), phoneSpelling(n))),
        ([x, y]) => {
          expect(indexOf('phone', x)).toBe(indexOf('phone', y));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('maps every spelling of a BVN and of a NIN to one index per label, and the two labels never share one', () => {
    fc.assert(
      fc.property(
        // Real BVNs start 22; the other ten digits are anything but one digit repeated.
        digits(9)
          .map((d) => `22${d}`)
          .filter((d) => !/^(\d)\1{10}$/.test(d))
          .chain((d) => fc.tuple(fc.constant(d), sprinkle(d, separator), sprinkle(d, separator), padding)),
        ([clear, x, y, pad]) => {
          for (const label of ['bvn', 'nin'] as const) {
            expect(normalize(label, pad + x + pad).value).toBe(clear);
            expect(indexOf(label, pad + x)).toBe(indexOf(label, y));
          }
          expect(indexOf('bvn', x)).not.toBe(indexOf('nin', x));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('maps every spelling of an e-mail address (case, surrounding space) to one index', () => {
    fc.assert(
      fc.property(
        email.chain((e) => fc.tuple(fc.constant(e), randomCase(e), randomCase(e), padding, padding)),
        ([clear, x, y, p, q]) => {
          expect(normalize('email', p + x + q).value).toBe(clear);
          expect(indexOf('email', p + x + q)).toBe(indexOf('email', y));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('maps every spelling of an account name (case, spacing, word order, commas) to one index', () => {
    fc.assert(
      fc.property(
        fc
          .array(word, { minLength: 1, maxLength: 5 })
          .chain((words) => fc.tuple(shuffled(words), shuffled(words), fc.constantFrom(' ', '  ', ', ', ' \t'))),
        ([x, y, glue]) => {
          const written = fc.sample(randomCase(x.join(glue)), 1)[0] as string;
          expect(indexOf('account_name', `  ${written} `)).toBe(indexOf('account_name', y.join(' ')));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('indexes an account twice, with and without its bank, and a bare-number search finds the bank-less entry', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...checkedBanks).chain((b) => fc.tuple(fc.constant(b.slug), nubanFor(b.code))),
        ([slug, nuban]) => {
          const stored = indexEntriesToStore(blindIndex, 'account', normalize('account', `${nuban}_${slug}`));
          expect(stored.map((e) => e.label)).toEqual(['account', 'account_nuban']);
          const bare = normalizeIdentifier('account', nuban, { banks, purpose: 'search' });
          const withBank = normalizeIdentifier('account', `${nuban}_${slug}`, { banks, purpose: 'search' });
          if (!bare.ok || !withBank.ok) throw new Error('search spelling rejected');
          expect(indexEntryToSearch(blindIndex, 'account', bare)).toEqual({
            label: stored[1]?.label,
            digests: [stored[1]?.digest],
          });
          expect(indexEntryToSearch(blindIndex, 'account', withBank)).toEqual({
            label: stored[0]?.label,
            digests: [stored[0]?.digest],
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
