import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

declare module 'fastify' {
  interface FastifyInstance {
    /** The headers every answer carries (registerSecurityHeaders), for those given before any hook runs. */
    securityHeaders?: Record<string, string>;
  }
}

/**
 * The headers helmet sets for these options, read once by running its middleware against a
 * response that only records them. They depend on the options alone: no policy here uses a
 * per-request nonce. (@fastify/helmet, used before, rebuilt helmet from its options on every
 * request — 5% of the service's CPU per search; decision record 0095.)
 */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * The headers every response carries, so that no cache or intermediary keeps a body (decode's
 * clear values, a search's reports) and no browser second-guesses a type. They are set in an
 * onRequest hook, so error answers (401, 404, 429) carry them too; a route that sets its own (the
 * signed download, the banks list) overrides them. Decision record 0031 gives the reason for each
 * header left at helmet's default, changed or left out.
 */
export function registerSecurityHeaders(app: FastifyInstance, options: { publicUrl: string }) {
  const https = options.publicUrl.startsWith('https://');
  const headers = {
    ...helmetHeaders({
      // JSON loads nothing; only /docs (Swagger UI) is a page, and it sends its own policy (staticCSP).
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      // Over plain HTTP (a laptop, a test) the header means nothing and would pin a host to HTTPS.
      strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
      // The API is called by servers, not embedded by other sites' pages.
      crossOriginResourcePolicy: { policy: 'same-origin' },
      xFrameOptions: { action: 'deny' },
    }),
    'cache-control': 'no-store',
  };
  // For the answers given before any hook runs (framework-errors.ts).
  app.decorate('securityHeaders', headers);
  // A callback hook, not an async one: it does no I/O, and each promise is a turn of the microtask queue.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
