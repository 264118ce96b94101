import { accepted, MAX_RAW_LENGTH, type Normalized, rejected } from './result.js';

/** Spaces (any Unicode space) and dashes (ASCII and typographic) that people put inside numbers. */
const SEPARATORS = /[\s\u2010-\u2015\u2212-]/gu;

function elevenDigits(raw: string, name: 'BVN' | 'NIN'): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected(`${name} must be 11 digits`);
  const digits = raw.normalize('NFKC').replace(SEPARATORS, '');
  if (!/^\d*$/.test(digits)) return rejected(`${name} must be 11 digits; it may contain only digits, spaces and dashes`);
  if (digits.length !== 11) return rejected(`${name} must be 11 digits, got ${digits.length}`);
  return accepted(digits);
}

/** Bank Verification Number: 11 digits. */
export function normalizeBvn(raw: string): Normalized {
  return elevenDigits(raw, 'BVN');
}

/** National Identification Number: 11 digits. */
export function normalizeNin(raw: string): Normalized {
  return elevenDigits(raw, 'NIN');
}

/**
 * Letters and digits, upper-cased, spaces and dashes ignored. Lengths are permissive because
 * formats differ by country and by year of issue; a value with no digit (NONE, UNKNOWN, N/A) is junk.
 */
function documentNumber(raw: string, name: string, min: number, max: number): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected(`${name} must be ${min} to ${max} letters and digits`);
  const compact = raw.normalize('NFKC').replace(SEPARATORS, '').toUpperCase();
  if (!/^[A-Z0-9]*$/.test(compact)) {
    return rejected(`${name} may contain only letters A-Z and digits (spaces and dashes are ignored)`);
  }
  if (compact.length < min || compact.length > max) {
    return rejected(`${name} must be ${min} to ${max} letters and digits, got ${compact.length}`);
  }
  if (!/\d/.test(compact)) return rejected(`${name} must contain at least one digit`);
  return accepted(compact);
}

/** Nigerian passports are a letter and 8 digits (A12345678); foreign ones vary, 6 to 20 characters allowed. */
export function normalizePassport(raw: string): Normalized {
  return documentNumber(raw, 'Passport number', 6, 20);
}

/** FRSC licences look like ABC12345AA12; older and foreign ones vary, 6 to 20 characters allowed. */
export function normalizeDriversLicense(raw: string): Normalized {
  return documentNumber(raw, "Driver's licence number", 6, 20);
}
