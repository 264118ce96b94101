import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;
const ISSUER = 'Redflag';

/** A fresh TOTP secret (160 bits, RFC 4226's recommendation), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label: string, issuer = ISSUER): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });
}

/**
 * The `otpauth://` URL an authenticator app reads (usually as a QR code). The issuer names the
 * member: a person with accounts at two members (decision 0121) gets two entries told apart, and an
 * app that keys entries by issuer and account does not replace one with the other.
 */
export function totpUrl(secret: string, email: string, memberName: string): string {
  return totp(secret, email, memberName ? `${ISSUER} (${memberName})` : ISSUER).toString();
}

/**
 * The time step a code belongs to, one step of clock drift either way allowed; undefined when it
 * matches none. The caller refuses a step at or before the last one accepted (RFC 6238 §5.2).
 */
export function totpStep(secret: string, code: string, now: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const timestamp = now.getTime();
  const delta = totp(secret, 'x').validate({ token: code, timestamp, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(timestamp / 1000 / PERIOD) + delta;
}

/** The current code (tests and the CLI's enrolment check use it; the server never sends it). */
export function totpCode(secret: string, now: Date): string {
  return totp(secret, 'x').generate({ timestamp: now.getTime() });
}
