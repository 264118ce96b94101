import { confusableSkeleton, removeDefaultIgnorables } from './confusables.js';
import { MAX_RAW_LENGTH, type Normalized, rejected } from './result.js';

/** Typographic apostrophes and dashes folded to their ASCII forms, so "O’Brien" matches "O'Brien". */
const APOSTROPHES = /[\u2018\u2019\u02bc\u02b9\u0060\u2032]/gu;
const DASHES = /[\u2010-\u2015\u2212]/gu;
/** Punctuation that separates words in a written name ("DOE, John", "ABC (NIG) LTD"): read as a space. */
const WORD_SEPARATORS = /[\s,;/()[\]]+/gu;
const NAME_CHARACTERS = /^[\p{L}\p{M}\p{N}'.&-]+$/u;

/**
 * Full case folding approximated with the built-ins: lower-, upper- then lower-casing maps ß and ẞ
 * to ss and final sigma to σ, which lower-casing alone does not; NFKC again because casing can
 * decompose. Repeated until nothing changes (once or twice), so normalising is idempotent. The
 * locale-free methods apply Unicode's default (root-locale) mappings, like toLocaleLowerCase('und'),
 * at a fiftieth of the cost.
 */
function caseFold(text: string): string {
  let current = text;
  for (let round = 0; round < 4; round++) {
    const next = current.toLowerCase().toUpperCase().toLowerCase().normalize('NFKC');
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * Default-ignorable code points removed, Unicode NFKC, case-folded, single-spaced. Words are letters, marks and digits, with apostrophes,
 * hyphens, dots and `&` inside them (business account names carry digits and `&`); commas, brackets,
 * slashes and semicolons separate words. The blind index sorts the words, so "DOE John" and
 * "john doe" are found by each other while the stored value keeps the order it was written in.
 */
export function normalizeAccountName(raw: string): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected('Account name is too long (200 characters at most)');
  // Invisible code points (U+034F, U+FE0F, zero-width joiners ...) would make a second spelling of one name.
  const text = caseFold(removeDefaultIgnorables(raw).normalize('NFKC')).replace(APOSTROPHES, "'").replace(DASHES, '-');
  const words = text.split(WORD_SEPARATORS).filter((word) => word !== '');
  if (words.length === 0) return rejected('Account name is empty');
  if (!words.every((word) => NAME_CHARACTERS.test(word))) {
    return rejected('Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &');
  }
  if (!/\p{L}/u.test(text)) return rejected('Account name must contain letters');
  const value = words.join(' ');
  if (value.length > 200) return rejected('Account name is too long (200 characters at most)');
  // Look-alike letters from other scripts are indexed as the Latin letters they imitate.
  const indexValue = words.map(confusableSkeleton).sort().join(' ');
  return { ok: true, value, indexValue };
}

const HANDLE = /^[a-z0-9._-]+$/;

/**
 * Default-ignorable code points removed; without one leading `@`, lower-cased (only ASCII letters
 * remain possible, so a look-alike letter from another script is refused rather than indexed). Letters, digits, dots, underscores and hyphens cover the
 * handles of Instagram, X, TikTok, Facebook and LinkedIn; 2 to 64 characters; at least one letter or digit.
 */
export function normalizeSocialHandle(raw: string): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected('Social handle is too long (64 characters at most)');
  const trimmed = removeDefaultIgnorables(raw).normalize('NFKC').trim();
  const handle = (trimmed.startsWith('@') ? trimmed.slice(1) : trimmed).toLowerCase();
  if (handle === '') return rejected('Social handle is empty');
  if (!HANDLE.test(handle)) {
    return rejected('Social handle may contain only letters, digits, dots, underscores and hyphens (and one leading @)');
  }
  if (handle.length < 2 || handle.length > 64) return rejected('Social handle must be 2 to 64 characters long');
  if (!/[a-z0-9]/.test(handle)) return rejected('Social handle must contain a letter or a digit');
  return { ok: true, value: handle, indexValue: handle };
}
