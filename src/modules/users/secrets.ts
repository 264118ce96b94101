import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: session ids and invitation tokens. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored instead of a token or recovery code: random values need no slow hash. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A recovery code: 80 random bits as four groups of four base32 letters (`abcd-efgh-ijkl-mnop`). */
export function newRecoveryCode(): string {
  const bytes = randomBytes(16);
  let code = '';
  for (let i = 0; i < 16; i++) code += BASE32[(bytes[i] as number) & 31];
  return code.match(/.{4}/g)?.join('-') ?? code;
}

/** Recovery codes are compared without dashes, spaces or case, as people retype them. */
export function normalizeRecoveryCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

export const RECOVERY_CODE_SHAPE = /^[a-z2-7]{16}$/;
