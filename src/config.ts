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
  publicUrl: string;
  logLevel: string;
  /** Largest JSON body accepted, in bytes. */
  bodyLimit: number;
  /** Connections to the PostgreSQL server per process. */
  databasePoolSize: number;
  /** Processes serving HTTP (node:cluster); more than one only on the server engine. */
  workers: number;
  /** How long a clean shutdown waits for requests in flight. */
  shutdownGraceMs: number;
  /** Requests a minute per API key unless its company has its own limit. */
  rateLimitPerMinute: number;
  /**
   * Which proxies to believe about the client's address (X-Forwarded-For): false, true (any), a
   * hop count, or a list of addresses/CIDRs. Per-address limits depend on it behind a load balancer.
   */
  trustProxy: boolean | number | string[];
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

function text(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function trustProxy(raw: string | undefined): boolean | number | string[] {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (list.some((entry) => !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry))) {
    throw new ConfigError('REDFLAG_TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses/CIDRs');
  }
  return list;
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
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    databaseSchema,
    redisUrl: text(env, 'REDIS_URL'),
    masterKey: text(env, 'REDFLAG_MASTER_KEY'),
    publicUrl: (text(env, 'REDFLAG_PUBLIC_URL') ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    logLevel,
    bodyLimit: integer(env, 'REDFLAG_BODY_LIMIT', 256 * 1024, 1024, 64 * 1024 * 1024),
    databasePoolSize: integer(env, 'REDFLAG_DB_POOL_SIZE', 10, 1, 200),
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
  };
}
