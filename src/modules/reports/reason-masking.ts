/**
 * A fraud reason as other companies see it: people type phone numbers, BVNs, NINs, account
 * numbers and e-mail addresses into free text, and search shows the reason to every member. Those
 * substrings are masked; the submitter's own get and decode keep the reason whole.
 *
 * - e-mail addresses keep their first character and domain: `j***@example.com`;
 * - a run of 10 or more digits (NUBAN 10, BVN/NIN 11, a phone 11 or 13 with +234) keeps only its
 *   last two digits: `*********67`. Dates (8 digits), amounts with thousands separators and short
 *   references are left as written.
 *
 * A run is what a person (or a phone's keyboard) writes between the digits of one number, read the
 * way search reads a phone: digits of any script (full-width `０８０３` too); between two of them up
 * to three spaces of any kind, closing brackets and the invisible characters a copy-and-paste
 * carries (zero-width spaces, joiners, direction marks), or one dot, slash or dash. An opening
 * bracket starts a run (`(0803) 123 4567`, `[0803]`) or follows a country code (`+234 (803) ...`),
 * and nowhere else: `₦250,000 (1500000 naira)` is an amount and a figure, not one number. A dash
 * with spaces around it is not inside a number: `2026-11-01 - 2026-11-05` is two dates.
 * Masking too much is a reason less readable; masking too little shows another company's customer.
 */
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
/** Between two digits of one number: spaces, closing brackets, invisible characters; or one dot, slash or dash. */
const SEPARATOR = String.raw`(?:[\s\p{Cf})\]]{1,3}|\p{Cf}*[./\p{Pd}]\p{Cf}*)`;
/** A country code and an opening bracket (`+234 (`), or a leading `+` or opening bracket alone. */
const RUN_START = String.raw`(?:[+＋]\p{Nd}{1,3}[\s\p{Cf}]{0,3}[(\[]|[+＋(\[])?`;
/** Digits with separators between them, after an optional start. */
const DIGIT_RUN = new RegExp(String.raw`${RUN_START}\p{Nd}(?:${SEPARATOR}?\p{Nd})+`, 'gu');
const DIGIT = /\p{Nd}/u;
const MIN_IDENTIFIER_DIGITS = 10;
const KEPT_DIGITS = 2;

export function maskFraudReason(reason: string): string {
  return reason
    .replace(EMAIL, (email) => `${[...email][0]}***${email.slice(email.lastIndexOf('@'))}`)
    .replace(DIGIT_RUN, (run) => {
      const digits = [...run].filter((c) => DIGIT.test(c));
      if (digits.length < MIN_IDENTIFIER_DIGITS) return run;
      return `${'*'.repeat(digits.length - KEPT_DIGITS)}${digits.slice(-KEPT_DIGITS).join('')}`;
    });
}
