import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * The headers every response carries, so that no cache or intermediary keeps a body (decode's
 * clear values, a search's reports) and no browser second-guesses a type. @fastify/helmet sets them
 * in an onRequest hook, so error answers (401, 404, 429) carry them too; a route that sets its own
 * (the signed download, the banks list) overrides them. Decision record 0031 gives the reason for
 * each header left at helmet's default, changed or left out.
 */
export async function registerSecurityHeaders(app: FastifyInstance, options: { publicUrl: string }) {
  const https = options.publicUrl.startsWith('https://');
  await app.register(helmet, {
    global: true,
    // JSON loads nothing; only /docs (Swagger UI) is a page, and it sends its own policy (staticCSP).
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    // Over plain HTTP (a laptop, a test) the header means nothing and would pin a host to HTTPS.
    hsts: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    // The API is called by servers, not embedded by other sites' pages.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    xFrameOptions: { action: 'deny' },
  });
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
}
