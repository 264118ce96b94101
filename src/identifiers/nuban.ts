import type { BankEntry } from './bank-directory.js';

/**
 * NUBAN check digit (CBN NUBAN standard). The 10-digit account number is a 9-digit serial plus a
 * check digit computed over the 3-digit CBN bank code followed by the serial:
 *   sum = Σ digit × weight, weights 3,7,3,3,7,3,3,7,3,3,7,3;  check = (10 − sum mod 10) mod 10.
 * The 2020 revision pads bank codes to 6 digits ("000" + the 3-digit code for deposit money banks,
 * "9" + the 5-digit CBN code for other financial institutions) and continues the same 3,7,3 pattern
 * over 15 positions. Because the pattern repeats every three positions and the padding is zeros, the
 * 15-position sum of a "000"-padded code equals the 12-position sum above, so one routine serves both.
 */
const WEIGHTS = [3, 7, 3];

export function nubanCheckDigit(bankCode: string, serial: string): number {
  const digits = bankCode + serial;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += (digits.charCodeAt(i) - 48) * (WEIGHTS[i % 3] as number);
  return (10 - (sum % 10)) % 10;
}

export function isValidNuban(bankCode: string, nuban: string): boolean {
  return nubanCheckDigit(bankCode, nuban.slice(0, 9)) === nuban.charCodeAt(9) - 48;
}

/** Institution categories whose `code` in banks.data.json is the CBN's own 3-digit bank code. */
const CBN_CODED_CATEGORIES = new Set(['commercial', 'merchant', 'non-interest']);

/**
 * The code to check a NUBAN against, or undefined when the check cannot be made with confidence.
 * Only commercial, merchant and non-interest banks whose listed code is exactly 3 digits qualify:
 * for those the list carries the CBN code the NUBAN was computed with. For microfinance banks,
 * payment-service banks, mobile-money operators and the few banks listed with a 6-digit code, the
 * listed code may be a payment processor's own or a NIBSS code rather than the CBN code the
 * 2020 scheme ("9" + 5-digit CBN code) needs, so a check would reject real accounts; those are not checked.
 */
export function nubanCheckCode(bank: BankEntry): string | undefined {
  return CBN_CODED_CATEGORIES.has(bank.category) && /^\d{3}$/.test(bank.code) ? bank.code : undefined;
}
