import { randomBytes } from 'node:crypto';
import { nubanCheckDigit } from '../../src/identifiers/nuban.js';

export const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
export const letters = (n: number) => Array.from(randomBytes(n), (b) => String.fromCharCode(97 + (b % 26))).join('');

/** A fresh NUBAN with a valid check digit for a bank with a 3-digit CBN code (044 = Access Bank). */
export function nuban(bankCode = '044'): string {
  const serial = digits(9);
  return `${serial}${nubanCheckDigit(bankCode, serial)}`;
}

/** A fresh Nigerian mobile number in local form, e.g. `0803 123 4567`. */
export const localPhone = () => `0803${digits(7)}`;
