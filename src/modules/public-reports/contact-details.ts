import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { FieldError } from '../../http/errors.js';
import { normalizeEmail } from '../../identifiers/email.js';
import { normalizePhone } from '../../identifiers/phone.js';

export interface ContactInput {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  amountLost?: number | undefined;
  currency?: string | undefined;
}

/** A victim's or guest's details with every key present (null when not given). */
export interface ContactDetails {
  name: string | null;
  email: string | null;
  phone: string | null;
  amountLost?: number | null;
  currency?: string | null;
}

/**
 * Normalises the details the way identifiers are (e-mail lower-cased, phone to E.164), so the masked
 * forms are stable; a value that cannot be normalised is added to `errors` as `<field>/email` etc.
 * `withAmount` adds the victim's `amountLost` and `currency`.
 */
export function normalizeContact(input: ContactInput, field: string, withAmount: boolean, errors: FieldError[]): ContactDetails {
  const details: ContactDetails = { name: null, email: null, phone: null };
  if (input.name !== undefined) details.name = input.name.trim().replace(/\s+/g, ' ');
  if (input.email !== undefined) {
    const email = normalizeEmail(input.email);
    if (email.ok) details.email = email.value;
    else errors.push({ field: `${field}/email`, message: email.message });
  }
  if (input.phone !== undefined) {
    const phone = normalizePhone(input.phone);
    if (phone.ok) details.phone = phone.value;
    else errors.push({ field: `${field}/phone`, message: phone.message });
  }
  if (withAmount) {
    details.amountLost = input.amountLost ?? null;
    details.currency = input.currency ?? null;
  }
  return details;
}

/** `john.doe@example.com` → `j***@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/**
 * `+2348031234567` → `+234****67`: the country calling code and the last two digits, nothing else.
 * Keeping the network prefix and three digits left 10⁴ candidates, a search's worth; now 10⁸.
 */
export function maskPhone(e164: string): string {
  const callingCode = parsePhoneNumberFromString(e164)?.countryCallingCode;
  return `${callingCode ? `+${callingCode}` : '+'}****${e164.slice(-2)}`;
}

/** `Adaeze Okafor` → `A*** O***`: enough to tell two people apart in a list, not to name them. */
export function maskName(name: string): string {
  return name
    .split(/\s+/u)
    .filter(Boolean)
    .map((word) => `${[...word][0] ?? ''}***`)
    .join(' ');
}

/** What search shows every company: name, e-mail and phone masked; the amount lost as given. */
export function maskContact(details: ContactDetails): ContactDetails {
  return {
    ...details,
    name: details.name === null ? null : maskName(details.name),
    email: details.email === null ? null : maskEmail(details.email),
    phone: details.phone === null ? null : maskPhone(details.phone),
  };
}
