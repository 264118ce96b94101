import { hash, verify } from '@node-rs/argon2';
import type { FieldError } from '../../http/errors.js';
import { isCommonPassword } from './common-passwords.js';

/**
 * argon2id at OWASP's first recommended setting (19 MiB, 2 passes, 1 lane). @node-rs/argon2 ships
 * prebuilt binaries per platform (no compiler) and runs on libuv's thread pool, so hashing never
 * blocks the event loop (measured in bench/sign-in.mjs).
 */
// `algorithm: 2` is the package's `Algorithm.Argon2id` (a const enum, which this build cannot import).
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A hash of nothing anyone knows: verified against when the e-mail is unknown, so that answer
 * takes as long as a wrong password (no account discovery by timing).
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(`dummy-${Math.random()}-${Date.now()}`);
  return dummyHash;
}

/** NIST SP 800-63B: length, and not one of the most common; no composition rules. */
export function checkPasswordPolicy(password: string, field: string): FieldError | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return { field, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` };
  if (length > PASSWORD_MAX_LENGTH) return { field, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` };
  if (isCommonPassword(password)) return { field, message: 'is one of the most common passwords; choose another' };
  return undefined;
}
