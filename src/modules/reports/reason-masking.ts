/**
 * A fraud reason as other companies see it: people type phone numbers, BVNs, NINs, account
 * numbers and e-mail addresses into free text, and search shows the reason to every member. Those
 * substrings are masked; the submitter's own get and decode keep the reason whole.
 *
 * - e-mail addresses keep their first character and domain: `j***@example.com`;
 * - a run of 10 or more digits (NUBAN 10, BVN/NIN 11, a phone 11 or 13 with +234), written with
 *   or without spaces, dots or dashes between them, keeps only its last two digits: `*********67`.
 *   Dates (8 digits), amounts with thousands separators and short references are left as written.
 */
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
/** Digits with single separators between them; an optional leading `+` (of +234). */
const DIGIT_RUN = /\+?\d(?:[ .-]?\d)+/g;
const MIN_IDENTIFIER_DIGITS = 10;
const KEPT_DIGITS = 2;

export function maskFraudReason(reason: string): string {
  return reason
    .replace(EMAIL, (email) => `${[...email][0]}***${email.slice(email.lastIndexOf('@'))}`)
    .replace(DIGIT_RUN, (run) => {
      const digits = run.replace(/\D/g, '');
      if (digits.length < MIN_IDENTIFIER_DIGITS) return run;
      return `${'*'.repeat(digits.length - KEPT_DIGITS)}${digits.slice(-KEPT_DIGITS)}`;
    });
}
