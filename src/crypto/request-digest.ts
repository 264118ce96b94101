import { createHmac, hkdfSync } from 'node:crypto';

/** The digest key: its own HKDF label over a stored key of the hierarchy, so no other use shares it. */
export function requestDigestKey(base: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', base, Buffer.from('redflag/hkdf/v1'), 'redflag/idempotency-request/v1', 32));
}

/** A 32-byte digest of a request body that tells two bodies apart and nothing else. */
export type RequestDigest = (body: unknown) => Buffer;

/**
 * HMAC-SHA-256 of the body's canonical JSON. A plain SHA-256 would let anyone with a copy of the
 * database try every BVN (10^9 of them) against the stored digest in minutes; keyed, the digest is
 * worth nothing without the root key, as the blind index is.
 */
export function createRequestDigest(key: Buffer): RequestDigest {
  const digestKey = Buffer.from(key);
  return (body) => createHmac('sha256', digestKey).update(canonicalJson(body)).digest();
}

/** Key order and whitespace do not make a different request; any other difference does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
