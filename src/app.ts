import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pino, { type DestinationStream } from 'pino';
import type { Config } from './config.js';
import type { Crypto } from './crypto/load-crypto.js';
import type { DatabaseHandle } from './db/database.js';
import { errorHandler, notFoundHandler } from './http/envelope.js';
import { registerMetrics } from './http/metrics.js';
import { type RouteSummary, registerOpenApi } from './http/openapi.js';
import { requestId } from './http/request-id.js';
import { validatorCompiler } from './http/validation.js';
import { bankRoutes } from './modules/banks/banks.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the OpenAPI completeness test and diagnostics. */
    routeList: RouteSummary[];
    /** The keyring (seal/open) and blind index, loaded and checked against the database before the app is built. */
    crypto: Crypto;
  }
}

export interface AppOptions {
  config: Config;
  /** Opened (and migrated) by the caller, who also closes it after the app. */
  database: DatabaseHandle;
  /** From `loadCrypto`, after migrations: start-up has already refused a wrong or missing root key. */
  crypto: Crypto;
  /** Where log lines go; standard output by default. Tests pass a stream to read them. */
  logStream?: DestinationStream;
}

/** Log paths that may carry secrets; pino replaces them before a line is written. */
export const REDACTED_LOG_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
];

export function createLogger(config: Pick<Config, 'logLevel'>, stream?: DestinationStream) {
  return pino(
    { level: config.logLevel, redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' } },
    stream ?? pino.destination({ sync: false }),
  );
}

/** Builds the whole service as a Fastify instance; it never listens (server.ts does). */
export async function buildApp({ config, database, crypto, logStream }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: createLogger(config, logStream) as FastifyBaseLogger,
    genReqId: requestId,
    bodyLimit: config.bodyLimit,
    // find-my-way answers a wrong method on a known path with 404, as the interface wants.
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  const routes = await registerOpenApi(app, config.publicUrl);
  app.decorate('routeList', routes);
  app.decorate('crypto', crypto);
  watchPrimaryKey(app, database, crypto);
  registerMetrics(app, database.pool);

  const { db } = database;
  await app.register(healthRoutes, {
    checks: [
      {
        name: 'database',
        async check() {
          await sql`select 1`.execute(db);
          return { ready: true, detail: database.engine };
        },
      },
    ],
  });
  await app.register(bankRoutes, { db });

  return app;
}

/** How often an instance on a shared server re-reads which key is primary. */
const KEY_REFRESH_MS = 30_000;

/**
 * On the server engine `crypto rotate` runs beside live instances: each re-reads the key table
 * now and then so it starts sealing under the new primary key (old values open all along).
 */
function watchPrimaryKey(app: FastifyInstance, database: DatabaseHandle, crypto: Crypto): void {
  if (database.engine !== 'server') return;
  const timer = setInterval(() => {
    crypto.refresh().catch((err: unknown) => app.log.error({ err }, 'could not re-read the encryption keys'));
  }, KEY_REFRESH_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
