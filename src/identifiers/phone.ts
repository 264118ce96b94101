import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { accepted, MAX_RAW_LENGTH, type Normalized, rejected } from './result.js';

/** What people put between digits; all of it is ignored. */
const PUNCTUATION = /[\s\-.()\u2010-\u2015\u2212]/gu;

/** Nigerian mobile numbers: 10 national digits after 70, 80, 81, 90 or 91 (0803..., 0907..., 0917...). */
const NIGERIAN_MOBILE = /^(70|80|81|90|91)\d{8}$/;

const EXAMPLES = 'a Nigerian number like 0803 123 4567 or +234 803 123 4567, or an international number with its + country code';

/**
 * Any spelling of a number → E.164. Nigeria is the default region, so `0803 123 4567`,
 * `2348031234567`, `+234 (0) 803 123 4567` and `8031234567` all become `+2348031234567`; a leading
 * `00` is read as the international prefix. Only digits, one leading `+` and the punctuation above
 * are allowed (libphonenumber would otherwise read past letters, `tel:` and extensions).
 *
 * Validation uses libphonenumber's "max" metadata (`isValid()` against each number type's pattern).
 * It accepts every allocated Nigerian mobile range (070x–071x, 080x–081x, 090x–091x), the 020
 * fixed lines, 0700 and 0800 numbers. The smaller "min" metadata only knows NG's general pattern,
 * which allows 10 to 14 national digits after 7 or 8: it accepts `0803 123 45678`, a mistyped
 * number that would be stored as a different identity than the real one. The price of "max" is
 * that a range the NCC allocates after our libphonenumber-js release (today 0917..., 0919...) is
 * rejected until the dependency is upgraded — so a Nigerian mobile number (10 national digits after
 * 70, 80, 81, 90 or 91) is accepted by its shape even when the metadata does not know its range yet:
 * a fraud report must never be refused because the NCC opened a new prefix. The stored form does
 * not depend on the choice.
 */
export function normalizePhone(raw: string): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected(`Phone number is too long; give ${EXAMPLES}`);
  let compact = raw.normalize('NFKC').replace(PUNCTUATION, '');
  if (!/^\+?\d+$/.test(compact)) {
    return rejected('Phone number may contain only digits, a leading +, spaces, dashes, dots and brackets');
  }
  if (compact.startsWith('00')) compact = `+${compact.slice(2)}`;
  if (compact.replace('+', '').length < 6 || compact.length > 20) {
    return rejected(`Phone number has the wrong number of digits; give ${EXAMPLES}`);
  }
  const parsed = parsePhoneNumberFromString(compact, 'NG');
  if (!parsed) return rejected(`Phone number is not a valid number; give ${EXAMPLES}`);
  const nigerianMobile = parsed.countryCallingCode === '234' && NIGERIAN_MOBILE.test(parsed.nationalNumber);
  if (!parsed.isValid() && !nigerianMobile) return rejected(`Phone number is not a valid number; give ${EXAMPLES}`);
  return accepted(parsed.number);
}
