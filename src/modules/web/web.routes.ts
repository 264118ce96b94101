import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { RoutesPlugin } from '../../http/types.js';

/** Built by scripts/build-web.js (npm install / npm start); the same path from src/ (tests) and dist/. */
export const WEB_ROOT = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/**
 * Only this site's own scripts, styles and API: no inline script or style, no framing, forms post
 * nowhere else. Scripts never see a key: the desk rides on the HttpOnly session cookie.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store');
}

/** The desk at `/` (and at an invite link), the public report form at `/report` and review request at `/review`, their assets under `/assets/`. */
export const webRoutes: RoutesPlugin<Record<never, never>> = async (app) => {
  if (!fs.existsSync(WEB_ROOT)) {
    app.log.warn({ root: WEB_ROOT }, 'the desk is not built (npm run build); / and /report answer 404');
    return;
  }
  await app.register(fastifyStatic, {
    root: WEB_ROOT,
    prefix: '/assets/',
    wildcard: false,
    index: false,
    schemaHide: true,
    cacheControl: false,
    setHeaders(res) {
      res.setHeader('content-security-policy', PAGE_CSP);
      res.setHeader('x-content-type-options', 'nosniff');
    },
  });
  app.get('/', { schema: { hide: true } }, (_request, reply) => pageHeaders(reply).sendFile('index.html'));
  app.get('/report', { schema: { hide: true } }, (_request, reply) => pageHeaders(reply).sendFile('report.html'));
  // The person who believes they are wrongly listed asks for a review (decision 0122).
  app.get('/review', { schema: { hide: true } }, (_request, reply) => pageHeaders(reply).sendFile('review.html'));
  // The invite link a person is handed (users.service.ts): the desk, which takes the token out of
  // the address bar at once and asks for a name and a password.
  app.get('/invitations/accept', { schema: { hide: true } }, (_request, reply) => pageHeaders(reply).sendFile('index.html'));
  // A link to choose a new password (password-links.service.ts): the same, without the name.
  app.get('/password-reset', { schema: { hide: true } }, (_request, reply) => pageHeaders(reply).sendFile('index.html'));
};
