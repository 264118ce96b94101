const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a piece of text a caller chose (a path segment, a request id) could be an identifier:
 * six digits or more once separators are gone (080-3123-4567, %30%38…) — a phone, BVN, NIN or
 * account number — or an e-mail address. A UUID is not: it is what logs are read by, and its hex
 * groups can put six digits side by side.
 */
export function mayBeIdentifier(text: string, minDigits = 6): boolean {
  if (UUID.test(text)) return false;
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // Broken percent-encoding: judged as it came.
  }
  return /@/.test(decoded) || new RegExp(`\\d{${minDigits}}`).test(decoded.replace(/[\s.\-()+_:]/g, ''));
}
