import type { BankDirectory } from './bank-directory.js';
import { isValidNuban, nubanCheckCode } from './nuban.js';
import { MAX_RAW_LENGTH, type Normalized, rejected } from './result.js';

export type Purpose = 'store' | 'search';

const BANK_LIST_HINT = 'see GET /api/v1/meta-data/banks';
const FORMAT_HINT = 'write it as <10-digit account number>_<bank slug>, for example 0123456789_access-bank';
/** A slug is echoed in a message only when it looks like one (it is not personal data). */
const SLUG_SHAPE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * `<10-digit NUBAN>_<bank slug>` → digits + `_` + slug, the slug lower-cased and known to the bank list.
 * Spaces and dashes inside the number are ignored. For a search a bare 10-digit number is accepted too;
 * it matches that number at every bank through the separate NUBAN index.
 */
export function normalizeAccount(raw: string, banks: BankDirectory, purpose: Purpose): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected(`Account is too long; ${FORMAT_HINT}`);
  const trimmed = raw.normalize('NFKC').trim();
  const separator = trimmed.indexOf('_');
  const numberPart = separator === -1 ? trimmed : trimmed.slice(0, separator);
  const nuban = numberPart.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(nuban) || nuban.length !== 10) {
    if (separator === -1 && purpose === 'store' && !/^[\d\s-]*$/.test(numberPart)) {
      return rejected(`Account must name its bank: ${FORMAT_HINT}`);
    }
    return rejected('Account number must be 10 digits (NUBAN)');
  }
  if (separator === -1) {
    if (purpose === 'search') return { ok: true, value: nuban, indexValue: nuban, nuban };
    return rejected(`Account must name its bank: ${FORMAT_HINT}`);
  }

  const slug = trimmed
    .slice(separator + 1)
    .trim()
    .toLowerCase();
  if (slug === '') return rejected(`Account is missing its bank slug; ${FORMAT_HINT}`);
  const bank = banks.get(slug);
  if (!bank) {
    return rejected(
      SLUG_SHAPE.test(slug) && slug.length <= 64
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
