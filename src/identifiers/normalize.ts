import { normalizeAccount, type Purpose } from './account.js';
import type { BankDirectory } from './bank-directory.js';
import { normalizeBvn, normalizeDriversLicense, normalizeNin, normalizePassport } from './documents.js';
import { normalizeEmail } from './email.js';
import type { IdentifierLabel } from './labels.js';
import { normalizeAccountName, normalizeSocialHandle } from './names.js';
import { normalizePhone } from './phone.js';
import { type Normalized, rejected } from './result.js';

export type { Purpose } from './account.js';
export type { BankDirectory, BankEntry } from './bank-directory.js';
export { createBankDirectory, shippedBankDirectory } from './bank-directory.js';
export { IDENTIFIER_LABELS, type IdentifierLabel, isIdentifierLabel, LABEL_NAMES } from './labels.js';
export type { Normalized, NormalizedOk } from './result.js';

export interface NormalizeOptions {
  banks: BankDirectory;
  /** `search` also accepts a bare 10-digit account number; `store` requires its bank slug. */
  purpose: Purpose;
}

/**
 * The one entry point: the normalised value (shown to the submitter), the value the blind index
 * hashes, and for accounts the bare NUBAN; or a message for a compliance officer. Pure.
 */
export function normalizeIdentifier(label: IdentifierLabel, raw: string, options: NormalizeOptions): Normalized {
  if (typeof raw !== 'string') return rejected('Identifier value must be a string');
  switch (label) {
    case 'account':
      return normalizeAccount(raw, options.banks, options.purpose);
    case 'bvn':
      return normalizeBvn(raw);
    case 'nin':
      return normalizeNin(raw);
    case 'drivers_license':
      return normalizeDriversLicense(raw);
    case 'international_passport':
      return normalizePassport(raw);
    case 'email':
      return normalizeEmail(raw);
    case 'phone':
      return normalizePhone(raw);
    case 'account_name':
      return normalizeAccountName(raw);
    case 'social_handle':
      return normalizeSocialHandle(raw);
    default:
      return rejected('Unknown identifier label');
  }
}
