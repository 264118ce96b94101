import os from 'node:os';
import path from 'node:path';

/** Everything the service can be told from outside. Parsed once; nothing else reads process.env. */
export interface Config {
  port: number;
  host: string;
  /** Embedded database, key file, control socket. */
  dataDir: string;
  /** PostgreSQL server; when unset the embedded engine (PGlite) in `dataDir` is used. */
  databaseUrl: string | undefined;
  /** Schema to work in on the server (tests isolate each file in its own). */
  databaseSchema: string | undefined;
  redisUrl: string | undefined;
  /** Base64 root key; when unset on the embedded engine a key file in `dataDir` is used. */
  masterKey: string | undefined;
  /** A file holding the base64 root key (a container secret), outside the data directory. */
  masterKeyFile: string | undefined;
  /** NODE_ENV=production: custody warnings at start-up. */
  production: boolean;
  publicUrl: string;
  logLevel: string;
  /** Largest JSON body accepted, in bytes. */
  bodyLimit: number;
  /** Connections to the PostgreSQL server for the whole service: the workers share it (REDFLAG_DB_MAX_CONNECTIONS). */
  databaseMaxConnections: number;
  /** This process's share of `databaseMaxConnections`. */
  databasePoolSize: number;
  /** How long opening a connection to the server (or waiting for a free one in the pool) may take. */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL's statement_timeout for the service's queries; the client gives up one second after it. */
  databaseStatementTimeoutMs: number;
  /** How long `/readyz` waits for each dependency before it answers 503. */
  readyTimeoutMs: number;
  /** Fastify: the longest a whole request (headers and body) may take to arrive. */
  requestTimeoutMs: number;
  /** The longest a connection may stay silent in the middle of a request. */
  connectionTimeoutMs: number;
  /** How long an idle kept-alive connection is held open between requests. */
  keepAliveTimeoutMs: number;
  /** Addresses/CIDRs that may read `/metrics` without an operator key (REDFLAG_METRICS_ALLOW). */
  metricsAllow: string[];
  /** After a Redis command times out, how long Redis is left alone before one probe tries it again. */
  redisBreakerCooldownMs: number;
  /** Processes serving HTTP (node:cluster); more than one only on the server engine. */
  workers: number;
  /** How long a clean shutdown waits for requests in flight. */
  shutdownGraceMs: number;
  /** Requests a minute per API key unless its company has its own limit. */
  rateLimitPerMinute: number;
  /**
   * Which proxies to believe about the client's address (X-Forwarded-For): none (false), a hop
   * count, or a list of addresses/CIDRs; never "any". Per-address limits depend on it behind a load balancer.
   */
  trustProxy: false | number | string[];
  /** Failed API key checks a client address may make a minute before it gets 429. */
  failedKeyChecksPerMinute: number;
  /** Prepended to every Redis key and channel, so deployments (or test runs) can share a server. */
  redisPrefix: string;
  /** How often the coalesced `lastUsedAt` times of API keys are written. */
  keyLastUsedFlushMs: number;
  /** Where a server on the embedded engine accepts administration commands: `<dataDir>/redflag.sock`. */
  controlSocketPath: string;
  /** Largest evidence file accepted, in bytes (larger is 413). */
  uploadMaxBytes: number;
  /** How long a signed attachment download URL stays valid. */
  attachmentUrlTtlSeconds: number;
  /** Public reports a client address may file in an hour. */
  publicReportsPerHour: number;
  /** Public evidence uploads a client address may send in an hour. */
  publicUploadsPerHour: number;
  /** A session ends after this long without a request. */
  sessionIdleMinutes: number;
  /** A session ends this long after sign-in, whatever the activity. */
  sessionAbsoluteHours: number;
  /** How long an invitation link works. */
  invitationTtlHours: number;
  /** How long a link to choose a new password works (decision 0132). */
  passwordResetTtlHours: number;
  /** Analysts and viewers must enrol TOTP too (admins and operator users always must). */
  totpRequiredForAll: boolean;
  /** SMTP server that e-mails invitations (smtp:// or smtps://); unset: the invite URL is handed over by hand. */
  smtpUrl: string | undefined;
  /** Sender of those e-mails. */
  mailFrom: string;
  /** Failed sign-ins per account, and per client address, in 15 minutes before 429. */
  signInFailuresPerAccount: number;
  signInFailuresPerAddress: number;
  /** Days a report's owner has to answer a dispute before the report leaves the list. */
  disputeResponseDays: number;
  /** The operators' address for people outside Redflag, shown on /report and /review; unset: none shown. */
  contactEmail: string | undefined;
  /** Days a report stays listed after publication (or its latest renewal). */
  listingDays: number;
  /** Days audit rows are kept. */
  auditDays: number;
  /** Public reports never moderated are deleted after this many days. */
  publicDraftDays: number;
  /** Rejected public reports are deleted after this many days. */
  publicRejectedDays: number;
  /** Closed review requests (the person wrongly listed) are deleted this many days after closing. */
  reviewClosedDays: number;
  /** A report's weight in the search verdict halves every this many days. */
  riskHalfLifeDays: number;
  /** How often each instance looks for due background jobs; 0 turns the timer off (tests run jobs by hand). */
  jobTickSeconds: number;
  /** Embedded: free space kept on the data directory's disk; under it database work is refused (503). 0: none. */
  diskReserveMb: number;
  /** Plain http and private/loopback webhook addresses allowed (tests, closed networks); never in production. */
  webhookAllowPrivate: boolean;
  /** How often each instance looks for due webhook deliveries; 0 turns the loop off (tests run it by hand). */
  webhookPollMs: number;
  /** How often each instance looks for screening chunks to screen when it found none (REDFLAG_SCREENING_POLL_MS). */
  screeningPollMs: number;
  /**
   * The most rows a second one screening job is screened at, by the service and by the CLI against
   * a server, its upload stored at most three times as fast; 0 for neither cap
   * (REDFLAG_SCREENING_ROWS_PER_SECOND, decision 0100).
   */
  screeningRowsPerSecond: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * 0 (no cap) or at least 1,000 rows a second: a worker then waits at most 2 s after a chunk
 * (CHUNK_ROWS, 2,000 rows), well inside the lease it holds the job under (LEASE_MS, 15 s).
 */
function screeningPace(env: Env): number {
  const name = 'REDFLAG_SCREENING_ROWS_PER_SECOND';
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return 12_000;
  const value = Number(raw);
  if (!Number.isInteger(value) || (value !== 0 && (value < 1_000 || value > 10_000_000))) {
    throw new ConfigError(`${name} must be 0 (no cap) or an integer from 1000 to 10000000, got "${raw}"`);
  }
  return value;
}

function text(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function addressList(name: string, raw: string): string[] {
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (list.some((entry) => !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry))) {
    throw new ConfigError(`${name} must be a comma-separated list of addresses/CIDRs`);
  }
  return list;
}

function flag(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function trustProxy(raw: string | undefined): false | number | string[] {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') {
    // Believing every X-Forwarded-For lets any client name its own address: per-address limits
    // (public reports, uploads, failed keys) are then walked around, or aimed at someone else.
    throw new ConfigError(
      'REDFLAG_TRUST_PROXY=true would believe an X-Forwarded-For from anyone; name the proxies instead: ' +
        'a hop count (e.g. 1 for one load balancer) or their addresses/CIDRs (e.g. 10.0.0.0/8)',
    );
  }
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (list.some((entry) => !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry))) {
    throw new ConfigError('REDFLAG_TRUST_PROXY must be false, a hop count, or a comma-separated list of addresses/CIDRs');
  }
  return list;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** One plain address: it becomes a mailto: link, where `?`, `&` or `#` would add headers (a Bcc, say) or cut it. */
const PLAIN_ADDRESS = /^[^\s@<>"?&#%/\\]+@[^\s@<>"?&#%/\\]+\.[^\s@<>"?&#%/\\]+$/;

function contactEmail(raw: string | undefined): string | undefined {
  if (raw !== undefined && (raw.length > 254 || !PLAIN_ADDRESS.test(raw))) {
    throw new ConfigError(`REDFLAG_CONTACT_EMAIL must be an e-mail address, got "${raw.slice(0, 80)}"`);
  }
  return raw;
}

function smtpUrl(raw: string | undefined): string | undefined {
  if (raw !== undefined && !/^smtps?:\/\/[^\s]+$/.test(raw)) {
    throw new ConfigError('REDFLAG_SMTP_URL must be an smtp:// or smtps:// URL');
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const databaseSchema = text(env, 'REDFLAG_DATABASE_SCHEMA');
  if (databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    throw new ConfigError('REDFLAG_DATABASE_SCHEMA must be a lower-case SQL identifier');
  }
  const dataDir = path.resolve(text(env, 'REDFLAG_DATA_DIR') ?? './data');
  const redisPrefix = text(env, 'REDFLAG_REDIS_PREFIX') ?? 'redflag:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(redisPrefix)) {
    throw new ConfigError('REDFLAG_REDIS_PREFIX must be 1 to 64 letters, digits or : _ . -');
  }
  // PGlite lives inside its process and holds the data directory alone: the embedded engine is one process.
  const workers = integer(env, 'REDFLAG_WORKERS', databaseUrl ? Math.min(os.availableParallelism(), 16) : 1, 1, 64);
  if (workers > 1 && !databaseUrl) {
    throw new ConfigError('REDFLAG_WORKERS above 1 needs DATABASE_URL: the embedded database is served by one process');
  }
  const masterKey = text(env, 'REDFLAG_MASTER_KEY');
  const masterKeyFile = text(env, 'REDFLAG_MASTER_KEY_FILE');
  if (masterKey !== undefined && masterKeyFile !== undefined) {
    throw new ConfigError('Set REDFLAG_MASTER_KEY or REDFLAG_MASTER_KEY_FILE, not both');
  }
  if (env.REDFLAG_DB_POOL_SIZE !== undefined) {
    throw new ConfigError(
      'REDFLAG_DB_POOL_SIZE was replaced by REDFLAG_DB_MAX_CONNECTIONS: the total for the service, shared by its workers',
    );
  }
  const databaseMaxConnections = integer(env, 'REDFLAG_DB_MAX_CONNECTIONS', defaultMaxConnections(workers), 1, 10_000);
  if (databaseUrl && workers > databaseMaxConnections) {
    throw new ConfigError(
      `REDFLAG_WORKERS (${workers}) is more than REDFLAG_DB_MAX_CONNECTIONS (${databaseMaxConnections}): each worker needs a connection`,
    );
  }
  const keepAliveTimeoutMs = integer(env, 'REDFLAG_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 600_000);
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    databaseSchema,
    redisUrl: text(env, 'REDIS_URL'),
    masterKey,
    masterKeyFile: masterKeyFile === undefined ? undefined : path.resolve(masterKeyFile),
    production: env.NODE_ENV === 'production',
    publicUrl: (text(env, 'REDFLAG_PUBLIC_URL') ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    logLevel,
    bodyLimit: integer(env, 'REDFLAG_BODY_LIMIT', 256 * 1024, 1024, 64 * 1024 * 1024),
    databaseMaxConnections,
    databasePoolSize: Math.max(1, Math.floor(databaseMaxConnections / workers)),
    databaseConnectTimeoutMs: integer(env, 'REDFLAG_DB_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
    databaseStatementTimeoutMs: integer(env, 'REDFLAG_DB_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000),
    readyTimeoutMs: integer(env, 'REDFLAG_READY_TIMEOUT_MS', 1_500, 100, 60_000),
    // Ten minutes: a 1,000,000-row watchlist CSV or 5 MiB of evidence from a phone on a slow link
    // takes minutes to arrive. A client that stops sending is cut by the connection timeout instead,
    // and headers still have to arrive within Node's 60 s.
    requestTimeoutMs: integer(env, 'REDFLAG_REQUEST_TIMEOUT_MS', 600_000, 1_000, 3_600_000),
    // Longer than the keep-alive time, so an idle kept-alive connection is closed by that rule, not this one.
    connectionTimeoutMs: integer(env, 'REDFLAG_CONNECTION_TIMEOUT_MS', keepAliveTimeoutMs + 5_000, 1_000, 900_000),
    keepAliveTimeoutMs,
    // Empty by default: behind a reverse proxy on the same host every caller would look local.
    metricsAllow: addressList('REDFLAG_METRICS_ALLOW', text(env, 'REDFLAG_METRICS_ALLOW') ?? ''),
    redisBreakerCooldownMs: integer(env, 'REDFLAG_REDIS_BREAKER_COOLDOWN_MS', 5_000, 100, 600_000),
    workers,
    shutdownGraceMs: integer(env, 'REDFLAG_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    rateLimitPerMinute: integer(env, 'REDFLAG_RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    trustProxy: trustProxy(text(env, 'REDFLAG_TRUST_PROXY')),
    failedKeyChecksPerMinute: integer(env, 'REDFLAG_FAILED_KEY_CHECKS_PER_MINUTE', 30, 1, 1_000_000),
    redisPrefix,
    keyLastUsedFlushMs: integer(env, 'REDFLAG_KEY_LAST_USED_FLUSH_MS', 5_000, 100, 300_000),
    controlSocketPath: path.join(dataDir, 'redflag.sock'),
    uploadMaxBytes: integer(env, 'REDFLAG_UPLOAD_MAX_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    attachmentUrlTtlSeconds: integer(env, 'REDFLAG_ATTACHMENT_URL_TTL_SECONDS', 15 * 60, 10, 7 * 24 * 3600),
    publicReportsPerHour: integer(env, 'REDFLAG_PUBLIC_REPORTS_PER_HOUR', 10, 1, 1_000_000),
    publicUploadsPerHour: integer(env, 'REDFLAG_PUBLIC_UPLOADS_PER_HOUR', 6, 1, 1_000_000),
    sessionIdleMinutes: integer(env, 'REDFLAG_SESSION_IDLE_MINUTES', 30, 1, 24 * 60),
    sessionAbsoluteHours: integer(env, 'REDFLAG_SESSION_ABSOLUTE_HOURS', 12, 1, 24 * 30),
    invitationTtlHours: integer(env, 'REDFLAG_INVITATION_TTL_HOURS', 72, 1, 24 * 30),
    passwordResetTtlHours: integer(env, 'REDFLAG_PASSWORD_RESET_TTL_HOURS', 24, 1, 24 * 7),
    totpRequiredForAll: boolean(env, 'REDFLAG_TOTP_REQUIRED_FOR_ALL', false),
    smtpUrl: smtpUrl(text(env, 'REDFLAG_SMTP_URL')),
    mailFrom: text(env, 'REDFLAG_MAIL_FROM') ?? 'Redflag <no-reply@redflag.invalid>',
    signInFailuresPerAccount: integer(env, 'REDFLAG_SIGN_IN_FAILURES_PER_ACCOUNT', 5, 1, 1_000_000),
    signInFailuresPerAddress: integer(env, 'REDFLAG_SIGN_IN_FAILURES_PER_ADDRESS', 20, 1, 1_000_000),
    disputeResponseDays: integer(env, 'REDFLAG_DISPUTE_RESPONSE_DAYS', 14, 1, 365),
    contactEmail: contactEmail(text(env, 'REDFLAG_CONTACT_EMAIL')),
    listingDays: integer(env, 'REDFLAG_LISTING_DAYS', 2190, 91, 36_500),
    auditDays: integer(env, 'REDFLAG_AUDIT_DAYS', 2555, 1, 36_500),
    publicDraftDays: integer(env, 'REDFLAG_PUBLIC_DRAFT_DAYS', 90, 1, 36_500),
    publicRejectedDays: integer(env, 'REDFLAG_PUBLIC_REJECTED_DAYS', 30, 1, 36_500),
    reviewClosedDays: integer(env, 'REDFLAG_REVIEW_CLOSED_DAYS', 365, 1, 36_500),
    riskHalfLifeDays: integer(env, 'REDFLAG_RISK_HALF_LIFE_DAYS', 365, 1, 36_500),
    jobTickSeconds: integer(env, 'REDFLAG_JOB_TICK_SECONDS', 60, 0, 86_400),
    diskReserveMb: integer(env, 'REDFLAG_DISK_RESERVE_MB', 128, 0, 1_048_576),
    webhookAllowPrivate: flag(env, 'REDFLAG_WEBHOOK_ALLOW_PRIVATE'),
    webhookPollMs: integer(env, 'REDFLAG_WEBHOOK_POLL_MS', 500, 0, 60_000),
    screeningPollMs: integer(env, 'REDFLAG_SCREENING_POLL_MS', 500, 0, 60_000),
    screeningRowsPerSecond: screeningPace(env),
  };
}

/**
 * Two connections per core, plus two, and at least two per worker: PostgreSQL spends more CPU per
 * search with more backends running at once (context switches, lock waits), so a pool larger than
 * the cores can keep busy costs throughput. On the 2-core bench machine 6 connections gave 21% more
 * searches a second than 20, and 20% less PostgreSQL CPU per search (decision 0093). The figure
 * assumes PostgreSQL has about as many cores as this machine; set REDFLAG_DB_MAX_CONNECTIONS when not.
 */
function defaultMaxConnections(workers: number): number {
  return Math.max(2 * workers, 2 * os.availableParallelism() + 2);
}
