import type { UrlSigner } from '../../crypto/url-signer.js';
import { isUuid } from '../ids.js';

/** Which upload route a file came through: a company's (`external`) or the public intake's. */
export type UploadOrigin = 'external' | 'public';

export const DOWNLOAD_PATH = '/api/v1/files';
const EXPIRES = /^\d{1,12}$/;

export type DownloadCheck = 'valid' | 'expired' | 'invalid';

/**
 * The two kinds of URL an upload has. Its reference URL (`<public URL>/api/v1/<origin>/uploads/<id>`)
 * is stable and names the file in create and draft-edit bodies. Its download URL is signed: an
 * HMAC over id and expiry, valid for `ttlSeconds`, needing no key.
 */
export function createUploadUrls(deps: { publicUrl: string; signer: UrlSigner; ttlSeconds: number }) {
  const { publicUrl, signer, ttlSeconds } = deps;
  const referencePatterns: Record<UploadOrigin, RegExp> = {
    external: new RegExp(`^${escapeRegExp(`${publicUrl}/api/v1/external/uploads/`)}([^/]+)$`),
    public: new RegExp(`^${escapeRegExp(`${publicUrl}/api/v1/public/uploads/`)}([^/]+)$`),
  };

  return {
    reference: (origin: UploadOrigin, id: string) => `${publicUrl}/api/v1/${origin}/uploads/${id}`,

    /** The upload id a reference URL names, or undefined for any other text. */
    parseReference(origin: UploadOrigin, url: string): string | undefined {
      const id = referencePatterns[origin].exec(url)?.[1];
      return id !== undefined && isUuid(id) ? id.toLowerCase() : undefined;
    },

    download(id: string, now = Date.now()): string {
      const expires = String(Math.floor(now / 1000) + ttlSeconds);
      return `${publicUrl}${DOWNLOAD_PATH}/${id}?expires=${expires}&signature=${signer.sign([id, expires])}`;
    },

    /** The signature is checked before the expiry, so an altered expiry is `invalid`, not `expired`. */
    checkDownload(id: string, expires: string | undefined, signature: string | undefined, now = Date.now()): DownloadCheck {
      if (expires === undefined || signature === undefined || !EXPIRES.test(expires)) return 'invalid';
      if (!signer.verify([id, expires], signature)) return 'invalid';
      return Number(expires) * 1000 < now ? 'expired' : 'valid';
    },
  };
}

export type UploadUrls = ReturnType<typeof createUploadUrls>;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
