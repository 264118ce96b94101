import type { BankDirectory } from './bank-directory.js';
import { isValidNuban, nubanCheckCode } from './nuban.js';
import { MAX_RAW_LENGTH, type Normalized, rejected } from './result.js';

export type Purpose = 'store' | 'search';

const BANK_LIST_HINT = 'see GET /api/v1/meta-data/banks';
const FORMAT_HINT = 'write it as <10-digit account number>_<bank slug>, for example 0123456789_access-bank';
/** A slug is echoed in a message only when it looks like one (it is not personal data). */
const SLUG_SHAPE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Digits (spaces or dashes among them), a space, dash, slash or colon, then a slug with a letter in
 * it: "0010246780 access-bank". The letter keeps "001 024 6780" a bare number.
 */
const LOOSELY_SEPARATED = /^((?:\d[\s-]*)*\d)[\s/:-]+([a-z0-9-]*[a-z][a-z0-9-]*)$/i;

/** The number and the bank slug as written (`slugPart` undefined when no bank is named). */
function splitAccount(trimmed: string): { numberPart: string; slugPart: string | undefined } {
  const underscore = trimmed.indexOf('_');
  if (underscore !== -1) return { numberPart: trimmed.slice(0, underscore), slugPart: trimmed.slice(underscore + 1) };
  const loose = LOOSELY_SEPARATED.exec(trimmed);
  if (loose) return { numberPart: loose[1] as string, slugPart: loose[2] };
  return { numberPart: trimmed, slugPart: undefined };
}

/**
 * `<10-digit NUBAN>_<bank slug>` → digits + `_` + slug, the slug lower-cased and known to the bank list.
 * Spaces and dashes inside the number are ignored, and a space, dash, slash or colon in place of the
 * `_` is understood (people copy "0010246780 access-bank" or "0010246780/access-bank" from their
 * records). For a search a bare 10-digit number is accepted too; it matches that number at every
 * bank through the separate NUBAN index.
 */
export function normalizeAccount(raw: string, banks: BankDirectory, purpose: Purpose): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected(`Account is too long; ${FORMAT_HINT}`);
  const { numberPart, slugPart } = splitAccount(raw.normalize('NFKC').trim());
  const nuban = numberPart.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(nuban) || nuban.length !== 10) {
    if (slugPart === undefined && purpose === 'store' && !/^[\d\s-]*$/.test(numberPart)) {
      return rejected(`Account must name its bank: ${FORMAT_HINT}`);
    }
    return rejected('Account number must be 10 digits (NUBAN)');
  }
  if (slugPart === undefined) {
    if (purpose === 'search') return { ok: true, value: nuban, indexValue: nuban, nuban };
    return rejected(`Account must name its bank: ${FORMAT_HINT}`);
  }

  const slug = slugPart.trim().toLowerCase();
  if (slug === '') return rejected(`Account is missing its bank slug; ${FORMAT_HINT}`);
  const bank = banks.get(slug);
  if (!bank) {
    return rejected(
      // Said back only when it reads as a bank's name: digits after the underscore (four in a row,
      // even after letters) may be a second account number or a phone number pasted there, and no
      // identifier is repeated in an error.
      SLUG_SHAPE.test(slug) && slug.length <= 64 && /[a-z]/.test(slug) && !/\d{4}/.test(slug)
        ? `Unknown bank slug "${slug}"; ${BANK_LIST_HINT}`
        : `Unknown bank slug; ${BANK_LIST_HINT}`,
    );
  }
  const checkCode = nubanCheckCode(bank);
  if (checkCode !== undefined && !isValidNuban(checkCode, nuban)) {
    return rejected(`Account number is not a valid NUBAN for ${bank.name} (its check digit does not match)`);
  }
  const value = `${nuban}_${slug}`;
  return { ok: true, value, indexValue: value, nuban, bankSlug: slug };
}
