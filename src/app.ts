import type { Server } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance, type FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import pino, { type DestinationStream } from 'pino';
import type { Config } from './config.js';
import type { Crypto } from './crypto/load-crypto.js';
import type { DatabaseHandle } from './db/database.js';
import { registerAuth } from './http/auth.js';
import { errorHandler, notFoundHandler } from './http/envelope.js';
import { createFailedKeyGuard } from './http/failed-key-guard.js';
import { registerMetrics } from './http/metrics.js';
import { type RouteSummary, registerOpenApi } from './http/openapi.js';
import { registerRateLimit } from './http/rate-limit.js';
import { requestId } from './http/request-id.js';
import { validatorCompiler } from './http/validation.js';
import { type AdminServices, createAdminServices } from './modules/admin/admin.commands.js';
import { bankRoutes } from './modules/banks/banks.routes.js';
import { companyAdminRoutes } from './modules/companies/companies.routes.js';
import { healthRoutes, type ReadinessCheck } from './modules/health/health.routes.js';
import { createKeyEvents } from './modules/keys/key-events.js';
import { createKeyAuthenticator } from './modules/keys/keys.authenticator.js';
import { keyRoutes } from './modules/keys/keys.routes.js';
import { registerPublicReports } from './modules/public-reports/public-reports.plugin.js';
import { registerReports } from './modules/reports/reports.plugin.js';
import { registerUploads } from './modules/uploads/uploads.plugin.js';
import type { RedisLink } from './redis/redis-link.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the OpenAPI completeness test and diagnostics. */
    routeList: RouteSummary[];
    /** The administration services, shared with the control socket so a CLI revocation clears this process's key cache. */
    admin: AdminServices;
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

function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

/**
 * A request as logged: the path without its query string, because a signed download link's
 * signature there is as good as a password for 15 minutes.
 */
function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.split('?')[0],
    host: request.host,
    remoteAddress: request.ip,
  };
}

export function createLogger(config: Pick<Config, 'logLevel'>, stream?: DestinationStream) {
  return pino(
    {
      level: config.logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
      serializers: { req: requestForLog as (request: unknown) => unknown },
    },
    stream ?? pino.destination({ sync: false }),
  );
}

/** Builds the whole service as a Fastify instance; it never listens (server.ts does). */
export async function buildApp({ config, database, crypto, logStream }: AppOptions): Promise<FastifyInstance> {
  const options: FastifyHttpOptions<Server> = {
    loggerInstance: createLogger(config, logStream) as FastifyBaseLogger,
    genReqId: requestId,
    // A hop count means: believe that many proxies in front of us.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.bodyLimit,
    // find-my-way answers a wrong method on a known path with 404, as the interface wants.
    return503OnClosing: true,
  };
  const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  acceptJsonOnly(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  const routes = await registerOpenApi(app, config.publicUrl);
  app.decorate('routeList', routes);
  app.decorate('crypto', crypto);
  watchPrimaryKey(app, database, crypto);
  registerMetrics(app, database.pool);

  const { db } = database;
  // ioredis is loaded only when there is a Redis to talk to (it is a tenth of the start-up's imports).
  const redis = config.redisUrl
    ? (await import('./redis/redis-link.js')).openRedisLink(config.redisUrl, { prefix: config.redisPrefix, log: app.log })
    : undefined;
  // Without Redis at start-up the service still starts, degraded (see RedisLink's outage policy).
  await redis?.waitUntilReady(2_000);
  const events = createKeyEvents({ redis });
  const admin = createAdminServices({ db, events });
  app.decorate('admin', admin);
  const authenticator = createKeyAuthenticator({
    db,
    events,
    defaultRateLimitPerMinute: config.rateLimitPerMinute,
    lastUsedFlushMs: config.keyLastUsedFlushMs,
    log: app.log,
  });
  app.addHook('onClose', async () => {
    // The database is closed after the app, so the last coalesced last-used times still get written.
    await authenticator.close();
    await events.close();
    await redis?.close();
  });
  // Both before any feature route: the auth hook and the limiter attach to routes as they are added.
  registerAuth(app, authenticator, createFailedKeyGuard(config.failedKeyChecksPerMinute));
  await registerRateLimit(app, { defaultPerMinute: config.rateLimitPerMinute, redis });

  const checks: ReadinessCheck[] = [
    {
      name: 'database',
      async check() {
        await sql`select 1`.execute(db);
        return { ready: true, detail: database.engine };
      },
    },
  ];
  if (redis) checks.push(redisCheck(redis));
  await app.register(healthRoutes, { checks });
  await app.register(bankRoutes, { db });
  await app.register(companyAdminRoutes, { companies: admin.companies });
  await app.register(keyRoutes, { keys: admin.keys });
  const uploads = await registerUploads(app, { db, crypto, config });
  await registerReports(app, {
    db,
    crypto,
    attachments: uploads.companyAttachments,
    asyncCommits: database.asyncCommits,
  });
  await registerPublicReports(app, {
    db,
    crypto,
    attachments: uploads.publicAttachments,
    reportsPerHour: config.publicReportsPerHour,
  });

  return app;
}

/**
 * JSON is the only body the API reads (uploads add multipart themselves): a text/plain body is a 415,
 * not a confusing 400. An empty body sent as application/json — what many HTTP clients do for a POST
 * without data, such as publish — counts as no body; anything else goes through Fastify's own parser
 * with its prototype-poisoning guard.
 */
function acceptJsonOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}

/** Redis down is degraded, not unready: the service keeps answering with per-instance counters. */
function redisCheck(redis: RedisLink): ReadinessCheck {
  return {
    name: 'redis',
    async check() {
      try {
        await redis.client.ping();
        return { ready: true, detail: 'connected' };
      } catch {
        return { ready: true, detail: 'degraded: unreachable; rate limits are counted per instance' };
      }
    },
  };
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
