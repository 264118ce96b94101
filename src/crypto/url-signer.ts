import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA-256 signatures for URLs the service hands out (download links that expire). */
export interface UrlSigner {
  /** base64url of HMAC-SHA-256 over the parts, each length-prefixed so no two part lists sign alike. */
  sign(parts: readonly string[]): string;
  /** Compares the signature as text: a changed character anywhere fails, even one base64 would decode alike. */
  verify(parts: readonly string[], signature: string): boolean;
}

const DOMAIN = 'redflag/url/v1';

export function createUrlSigner(key: Buffer): UrlSigner {
  const secret = Buffer.from(key);
  const sign = (parts: readonly string[]) => {
    const mac = createHmac('sha256', secret).update(DOMAIN);
    for (const part of parts) mac.update(`\n${Buffer.byteLength(part)}:`).update(part);
    return mac.digest('base64url');
  };
  return {
    sign,
    verify(parts, signature) {
      const expected = Buffer.from(sign(parts));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
