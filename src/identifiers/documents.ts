import { accepted, MAX_RAW_LENGTH, type Normalized, rejected } from './result.js';

/** Spaces (any Unicode space) and dashes (ASCII and typographic) that people put inside numbers. */
const SEPARATORS = /[\s\u2010-\u2015\u2212-]/gu;

function elevenDigits(raw: string, name: 'BVN' | 'NIN'): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected(`${name} must be 11 digits`);
  const digits = raw.normalize('NFKC').replace(SEPARATORS, '');
  if (!/^\d*$/.test(digits)) return rejected(`${name} must be 11 digits; it may contain only digits, spaces and dashes`);
  if (digits.length !== 11) return rejected(`${name} must be 11 digits, got ${digits.length}`);
  // Placeholders such as 00000000000 would link unrelated parties across every company's reports.
  if (/^(\d)\1{10}$/.test(digits))
    return rejected(`${name} cannot be one digit repeated; that is a placeholder, not a real ${name}`);
  // BVNs are issued from 22...; a leading 0 is the commonest mix-up, an 11-digit phone number.
  if (name === 'BVN' && digits.startsWith('0')) return rejected('BVN never starts with 0; this looks like a phone number');
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
