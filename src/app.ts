import type { Server } from 'node:http';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { type Crypto, KEY_REFRESH_MS } from './crypto/load-crypto.js';
import type { DatabaseHandle } from './db/database.js';
import { keepTablesUp } from './db/table-upkeep.js';
import { registerAuth } from './http/auth.js';
import { errorHandler, notFoundHandler } from './http/envelope.js';
import { AppError } from './http/errors.js';
import { createFailedKeyGuard } from './http/failed-key-guard.js';
import { answerUnavailableWhileClosing, clientErrorHandler, frameworkErrors } from './http/framework-errors.js';
import { lazySchemaCompilation, type SchemaCompilation } from './http/lazy-schemas.js';
import { createLogger } from './http/logging.js';
import { registerMetrics } from './http/metrics.js';
import { type RouteSummary, registerOpenApi } from './http/openapi.js';
import { registerRateLimit } from './http/rate-limit.js';
import { refuseRepeatedQueryParameters } from './http/repeated-query.js';
import { refuseBodiesNoRouteReads, refuseBrokenQueryEncoding } from './http/request-guards.js';
import { requestId } from './http/request-id.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { validatorCompiler } from './http/validation.js';
import { type Clock, systemClock } from './jobs/clock.js';
import { createFailureRun } from './jobs/failure-run.js';
import { registerJobMetrics } from './jobs/job-metrics.js';
import { createScheduler, type Job, type Scheduler } from './jobs/scheduler.js';
import { type AdminServices, createAdminServices } from './modules/admin/admin.commands.js';
import { createAuditRetention } from './modules/audit/audit.retention.js';
import { bankRoutes } from './modules/banks/banks.routes.js';
import { bankLinkRoutes } from './modules/companies/bank-links.routes.js';
import { companyAdminRoutes } from './modules/companies/companies.routes.js';
import { contactRoutes } from './modules/contact/contact.routes.js';
import { registerDisputes } from './modules/disputes/disputes.plugin.js';
import { healthRoutes, type ReadinessCheck } from './modules/health/health.routes.js';
import { registerInstance } from './modules/instances/instance-lease.js';
import { createKeyEvents } from './modules/keys/key-events.js';
import { createKeyAuthenticator } from './modules/keys/keys.authenticator.js';
import { keyRoutes } from './modules/keys/keys.routes.js';
import { createPublicReportsCleanup } from './modules/public-reports/public-reports.cleanup.js';
import { registerPublicReports } from './modules/public-reports/public-reports.plugin.js';
import { purgeExpiredIdempotencyKeys } from './modules/reports/idempotency.js';
import { registerReports } from './modules/reports/reports.plugin.js';
import { registerReviewRequests } from './modules/review-requests/review-requests.plugin.js';
import { createReviewRequestsRetention } from './modules/review-requests/review-requests.retention.js';
import { safelistRoutes } from './modules/safelist/safelist.routes.js';
import { registerScreenings } from './modules/screenings/screenings.plugin.js';
import { registerUploads } from './modules/uploads/uploads.plugin.js';
import { createMailer } from './modules/users/mailer.js';
import { deleteExpiredSessions } from './modules/users/sessions.repository.js';
import { createPeople, registerUsers } from './modules/users/users.plugin.js';
import { watchlistAlertsRoutes } from './modules/watchlists/watchlist-alerts.routes.js';
import { createWatchlistAlerts, WATCHLIST_ALERT_SETTLE_SECONDS } from './modules/watchlists/watchlist-alerts.service.js';
import { webRoutes } from './modules/web/web.routes.js';
import { registerWebhooks } from './modules/webhooks/webhooks.plugin.js';
import type { RedisLink } from './redis/redis-link.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the OpenAPI completeness test and diagnostics. */
    routeList: RouteSummary[];
    /** The administration services, shared with the control socket so a CLI revocation clears this process's key cache. */
    admin: AdminServices;
    /** The keyring (seal/open) and blind index, loaded and checked against the database before the app is built. */
    crypto: Crypto;
    /** The background jobs (src/jobs): `redflag jobs status`, and tests that run a job at a moved clock. */
    jobs: Scheduler;
    /** The route schemas, compiled on first use (lazy-schemas.ts); server.ts compiles the rest once listening. */
    routeSchemas: SchemaCompilation;
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
  /** The time sessions, invitations and TOTP codes are judged by; tests move it instead of waiting. */
  now?: () => Date;
  /** Where time-bound rules and jobs read the time; tests pass one they move. */
  clock?: Clock;
}

function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

/** Builds the whole service as a Fastify instance; it never listens (server.ts does). */
export async function buildApp({
  config,
  database,
  crypto,
  logStream,
  clock = systemClock,
  now,
}: AppOptions): Promise<FastifyInstance> {
  const schemas = lazySchemaCompilation(validatorCompiler);
  const options: FastifyHttpOptions<Server> = {
    schemaController: { compilersFactory: { buildSerializer: schemas.buildSerializer } },
    loggerInstance: createLogger(config, logStream) as FastifyBaseLogger,
    genReqId: requestId,
    // A hop count means: believe that many proxies in front of us.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.bodyLimit,
    // Upload routes are public: a client trickling bytes must not hold a socket for ever.
    requestTimeout: config.requestTimeoutMs,
    // Node enforces the request timeout (and the headers timeout it derives from it) only when the
    // server is created with it, and looks for late requests only this often (30 s by default).
    http: {
      requestTimeout: config.requestTimeoutMs,
      // Headers are small: they get a minute however long the body may take.
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(config.requestTimeoutMs / 2, 5_000),
      // Node answers a request without Host with a bare 400 of its own (no envelope, no request id,
      // no security headers); the request comes through instead and is refused in the envelope below.
      requireHostHeader: false,
    },
    connectionTimeout: config.connectionTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Requests arriving while the service closes get the envelope's 503 (answerUnavailableWhileClosing).
    return503OnClosing: false,
    frameworkErrors,
    clientErrorHandler,
  };
  const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(schemas.validatorCompiler);
  app.decorate('routeSchemas', schemas);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  acceptJsonOnly(app);
  refuseRepeatedQueryParameters(app);
  refuseBrokenQueryEncoding(app);
  refuseBodiesNoRouteReads(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerSecurityHeaders(app, { publicUrl: config.publicUrl });
  // HTTP/1.1 requires Host (RFC 9112 §3.2); HTTP/1.0 may leave it out. After the security headers,
  // which the refusal carries too.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.raw.headers.host === undefined) {
      return done(new AppError('BAD_REQUEST', 'The request has no Host header, which HTTP/1.1 requires'));
    }
    done();
  });
  answerUnavailableWhileClosing(app);

  const routes = await registerOpenApi(app, config.publicUrl);
  app.decorate('routeList', routes);
  app.decorate('crypto', crypto);
  for (const warning of crypto.warnings) app.log.warn(warning);
  watchPrimaryKey(app, database, crypto);

  const { db } = database;
  // ioredis is loaded only when there is a Redis to talk to (it is a tenth of the start-up's imports).
  const redis = config.redisUrl
    ? (await import('./redis/redis-link.js')).openRedisLink(config.redisUrl, {
        prefix: config.redisPrefix,
        log: app.log,
        breakerCooldownMs: config.redisBreakerCooldownMs,
      })
    : undefined;
  // Without Redis at start-up the service still starts, degraded (see RedisLink's outage policy).
  await redis?.waitUntilReady(2_000);
  const events = createKeyEvents({ redis });
  const currentTime = now ?? (() => clock.now());
  const mailer = createMailer(config.smtpUrl, config.mailFrom);
  const admin = createAdminServices({ db, events, crypto, config, mailer, now: currentTime, log: app.log });
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
    mailer?.close();
  });
  // All before any feature route: the cookie parser, the auth hook and the limiter attach to routes as they are added.
  await app.register(cookie);
  const people = createPeople({ db, crypto, config, redis, now: currentTime, asyncCommits: database.asyncCommits });
  registerAuth(app, {
    keys: authenticator,
    guard: createFailedKeyGuard(config.failedKeyChecksPerMinute),
    sessions: people.sessions,
    origin: new URL(config.publicUrl).origin,
    defaultRateLimitPerMinute: config.rateLimitPerMinute,
  });
  const metrics = registerMetrics(app, database.pool, { allow: config.metricsAllow, checkpoints: database.checkpoints }, () =>
    crypto.keyring.sealCounts(),
  );
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
  await app.register(healthRoutes, { checks, timeoutMs: config.readyTimeoutMs });
  await app.register(bankRoutes, { db });
  await app.register(contactRoutes, { email: config.contactEmail });
  await app.register(companyAdminRoutes, { companies: admin.companies });
  await app.register(bankLinkRoutes, { bankLinks: admin.bankLinks });
  await app.register(keyRoutes, { keys: admin.keys });
  const instance = await registerInstance(db, database.engine, app.log);
  app.addHook('onClose', async () => instance.close());
  const uploads = await registerUploads(app, { db, crypto, config });
  const reports = await registerReports(app, {
    db,
    crypto,
    attachments: uploads.companyAttachments,
    asyncCommits: database.asyncCommits,
    instanceId: instance.id,
    clock,
    listingDays: config.listingDays,
    riskHalfLifeDays: config.riskHalfLifeDays,
    // The pool's own size: the embedded engine has one connection, whatever the budget says.
    poolSize: database.pool.options.max ?? 1,
    // As long as the pool lets a query wait for a connection: none on the embedded engine.
    searchWaitLimitMs: database.pool.options.connectionTimeoutMillis || undefined,
  });
  await registerPublicReports(app, {
    db,
    crypto,
    attachments: uploads.publicAttachments,
    reportsPerHour: config.publicReportsPerHour,
  });
  await registerReviewRequests(app, { db, crypto, requestsPerHour: config.publicReportsPerHour, now: currentTime });
  await registerUsers(app, { people, users: admin.users, passwordLinks: admin.passwordLinks, config });
  if (admin.safelist) await app.register(safelistRoutes, { safelist: admin.safelist });
  const disputes = await registerDisputes(app, {
    db,
    clock,
    responseDays: config.disputeResponseDays,
    attachments: uploads.companyAttachments,
    texts: crypto.keyring,
  });
  const deliveries = await registerWebhooks(app, {
    db,
    crypto,
    clock,
    allowPrivate: config.webhookAllowPrivate,
    pollMs: config.webhookPollMs,
  });
  const watchlistAlerts = createWatchlistAlerts({
    db,
    mailer,
    deskUrl: `${config.publicUrl}/#watchlist`,
    settleSeconds: WATCHLIST_ALERT_SETTLE_SECONDS,
    log: app.log,
  });
  await app.register(watchlistAlertsRoutes, { alerts: watchlistAlerts });

  const screenings = await registerScreenings(app, {
    db,
    crypto,
    asyncCommits: database.asyncCommits,
    riskHalfLifeDays: config.riskHalfLifeDays,
    pollMs: config.screeningPollMs,
    rowsPerSecond: config.screeningRowsPerSecond,
    engine: database.engine,
  });

  // Every background job, by name: each runs once across instances when due (src/jobs/scheduler.ts).
  const hourly = 3600;
  const jobs: Job[] = [
    {
      name: 'uploads.sweep',
      description: 'remove uploads left unattached for 24 hours',
      everySeconds: hourly,
      run: () => uploads.service.sweep(),
    },
    {
      name: 'sessions.purge',
      description: 'delete desk sessions past their idle or absolute end',
      everySeconds: hourly,
      // The sessions' own clock, which their ends were computed with.
      run: () => deleteExpiredSessions(db, currentTime(), people.idleMs),
    },
    {
      name: 'idempotency.purge',
      description: 'remove stored idempotent responses past their 24 hours',
      everySeconds: hourly,
      run: () => purgeExpiredIdempotencyKeys(db),
    },
    {
      name: 'disputes.timeout',
      description: 'unanswered disputes past their deadline take the report off the list',
      everySeconds: 600,
      run: (now) => disputes.timeOutOverdue(now),
    },
    {
      name: 'listings.expire',
      description: `reports listed ${config.listingDays} days without renewal leave the list ("Expired")`,
      everySeconds: hourly,
      run: (now) => reports.listing.expire(now),
    },
    {
      name: 'public-reports.cleanup',
      description: `delete public drafts never moderated after ${config.publicDraftDays} days, rejected after ${config.publicRejectedDays}`,
      everySeconds: hourly,
      run: createPublicReportsCleanup({
        db,
        draftDays: config.publicDraftDays,
        rejectedDays: config.publicRejectedDays,
        detachFiles: (trx, ids) => uploads.service.detachFromRecords(trx, ids),
      }),
    },
    {
      name: 'review-requests.retention',
      description: `delete review requests ${config.reviewClosedDays} days after they were closed`,
      everySeconds: 24 * hourly,
      run: createReviewRequestsRetention({ db, closedDays: config.reviewClosedDays }),
    },
    {
      name: 'audit.retention',
      description: `delete audit rows older than ${config.auditDays} days`,
      everySeconds: 24 * hourly,
      run: createAuditRetention({ db, auditDays: config.auditDays }),
    },
    {
      name: 'webhooks.deliver',
      description: 'send due webhook deliveries (each instance also polls every REDFLAG_WEBHOOK_POLL_MS)',
      everySeconds: 60,
      run: (now) => deliveries.runDue(now),
    },
    {
      name: 'watchlist.alerts',
      description: 'e-mail the people who asked what happened to their watched customers (counts only, one mail each a run)',
      everySeconds: 900,
      run: () => watchlistAlerts.sendDue(),
    },
    {
      name: 'database.upkeep',
      description:
        database.engine === 'embedded'
          ? 'vacuum and analyse tables as autovacuum would (PGlite has none), against wraparound too, and analyse any never analysed'
          : "analyse tables never analysed (after pg_upgrade, before PostgreSQL 18); the rest is autovacuum's",
      everySeconds: 60,
      run: async () => {
        const { done, failed, restartToFreeze } = await keepTablesUp(database);
        if (done.length) app.log.info({ tables: done }, 'database upkeep');
        if (restartToFreeze.length)
          app.log.warn(
            { databases: restartToFreeze },
            'restart the service when convenient: only a start vacuums these embedded databases against transaction id wraparound',
          );
        if (failed.length) throw new Error(`upkeep failed for ${failed.map((f) => `${f.table} (${f.error})`).join(', ')}`);
        return done.length;
      },
    },
    {
      name: 'screenings.run',
      description: 'screen the chunks of customer files waiting (each instance also polls every REDFLAG_SCREENING_POLL_MS)',
      everySeconds: 60,
      run: () => screenings.runDue(),
    },
  ];
  let scheduler: Scheduler | undefined;
  const observe = registerJobMetrics(metrics, { status: () => (scheduler as Scheduler).status() });
  scheduler = createScheduler({ db, clock, jobs, log: app.log, onOutcome: observe });
  app.decorate('jobs', scheduler);
  const started = scheduler;
  app.addHook('onReady', async () => {
    await started.ensureRows();
    started.start(config.jobTickSeconds);
  });
  app.addHook('onClose', async () => started.stop());
  // The desk and the public form: pages and bundles built into dist/web, same origin as the API.
  await app.register(webRoutes);

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
    return parseJson(request, body as string, (error, value) => {
      // Fastify's guard refuses valid JSON that would poison a prototype, and calls it "not JSON": say which.
      if (error && parsesAsJson(body as string)) {
        return done(
          new AppError('MALFORMED_JSON', 'The request body uses a key that is not allowed (__proto__ or constructor.prototype)'),
          undefined,
        );
      }
      return done(error, value);
    });
  });
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Redis down is degraded, not unready: the service keeps answering with per-instance counters. */
function redisCheck(redis: RedisLink): ReadinessCheck {
  return {
    name: 'redis',
    async check() {
      if (redis.isCircuitOpen())
        return { ready: true, detail: 'degraded: not answering in time; rate limits are counted per instance' };
      try {
        await redis.client.ping();
        return { ready: true, detail: 'connected' };
      } catch {
        return { ready: true, detail: 'degraded: unreachable; rate limits are counted per instance' };
      }
    },
  };
}

/**
 * On the server engine `crypto rotate` runs beside live instances: each re-reads the key table
 * now and then so it starts sealing under the new primary key (old values open all along).
 */
function watchPrimaryKey(app: FastifyInstance, database: DatabaseHandle, crypto: Crypto): void {
  if (database.engine !== 'server') return;
  const failures = createFailureRun(app.log, 'encryption key re-read');
  const timer = setInterval(() => {
    crypto.refresh().then(failures.succeeded, failures.failed);
  }, KEY_REFRESH_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
