import { accepted, MAX_RAW_LENGTH, type Normalized, rejected } from './result.js';

/** RFC 5322 atext: what an unquoted local part may contain besides dots. */
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * Trimmed and lower-cased (the whole address: no provider treats case as significant in practice).
 * The rule: ASCII only; one `@`; a local part of 1–64 characters in RFC 5322 dot-atom form
 * (no quoted strings, no leading, trailing or doubled dots); a domain of at least two labels, each
 * 1–63 letters, digits or inner hyphens, the last one alphabetic or an `xn--` IDN label (no IP
 * literals); 254 characters at most in all. Internationalised domains are accepted in their
 * `xn--` form. Provider-specific aliases (dots or `+tags` at Gmail) are kept: they are different
 * addresses to everyone but that provider.
 */
export function normalizeEmail(raw: string): Normalized {
  if (raw.length > MAX_RAW_LENGTH) return rejected('E-mail address is too long (254 characters at most)');
  const address = raw.trim().toLowerCase();
  if (address.length > 254) return rejected('E-mail address is too long (254 characters at most)');
  if (/[^\x21-\x7e]/.test(address)) {
    return rejected('E-mail address may contain only ASCII letters, digits and punctuation, without spaces');
  }
  const at = address.lastIndexOf('@');
  if (at === -1 || address.indexOf('@') !== at) return rejected('E-mail address must contain exactly one @');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length === 0 || local.length > 64 || !LOCAL_PART.test(local)) {
    return rejected('E-mail address has an invalid part before the @');
  }
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label)) || !TOP_LEVEL.test(labels.at(-1) as string)) {
    return rejected('E-mail address has an invalid domain after the @');
  }
  return accepted(address);
}
