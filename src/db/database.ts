import type { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { lockDataDir } from './data-dir-lock.js';
import { RedflagPostgresDialect } from './dialect.js';
import { type DiskReserve, keepDiskReserve } from './disk-reserve.js';
import { embeddedPgdata, openPglite } from './embedded.js';
import { type CheckpointerOptions, type CheckpointStats, createCheckpointer } from './embedded-checkpointer.js';
import { type FreezeLimits, withOtherDatabasesFrozen } from './embedded-freeze.js';
import { removeCrashTempFiles } from './embedded-temp-files.js';
import { pgliteClientConfig } from './pglite-connection.js';
import { preparingPool } from './prepared-pool.js';
import type { Database } from './schema.js';
import { type AsyncCommits, createWalFlusher, serverAsyncCommits } from './wal-flusher.js';

export type Engine = 'embedded' | 'server';

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /**
   * The node-postgres pool both engines are reached through (for pool figures). Work taken
   * straight from it skips the serving pool's checks: ask `refusal` first.
   */
  pool: pg.Pool;
  /** Embedded: why no more database work may start now (under the disk reserve), if so. */
  refusal?: () => Error | undefined;
  /** Keeps the promise of `synchronous_commit = off` transactions (see wal-flusher.ts). */
  asyncCommits: AsyncCommits;
  /** Embedded: the checkpoints run for WAL volume (embedded-checkpointer.ts); a server's are its own. */
  checkpoints?: () => CheckpointStats;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  /** Schema used on the server; created when missing. */
  databaseSchema?: string | undefined;
  dataDir: string;
  poolSize: number;
  /** Bounds for a serving process; unset (administration commands, migrations) waits as long as it takes. */
  timeouts?: DatabaseTimeouts;
  /** Embedded: when the data directory's other databases are vacuumed; PostgreSQL's autovacuum settings unless given (tests). */
  freezeLimits?: FreezeLimits;
  /** Embedded: when WAL calls for a checkpoint, and how often it is looked at (tests). */
  checkpoint?: CheckpointerOptions;
  /** Embedded: free space the data directory's disk keeps; under it no database work starts (disk-reserve.ts). 0 or unset: none. */
  diskReserveBytes?: number;
}

export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** PostgreSQL's statement_timeout; the client stops waiting for an answer a second later. */
  statementMs: number;
}

export class DatabaseUnavailableError extends Error {}

const INT8_OID = 20;
/** Counts come back as int8; they fit a JS number in any realistic registry. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** The database the configuration names, with `poolSize` connections to a server. */
export function databaseOptions(
  config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir' | 'diskReserveMb'>,
  poolSize: number,
): DatabaseOptions {
  return {
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    dataDir: config.dataDir,
    poolSize,
    diskReserveBytes: config.diskReserveMb * 1024 * 1024,
  };
}

/** The serving process's database: its share of the connection budget, every wait bounded. */
export function servingDatabaseOptions(
  config: Pick<
    Config,
    | 'databaseUrl'
    | 'databaseSchema'
    | 'dataDir'
    | 'diskReserveMb'
    | 'databasePoolSize'
    | 'databaseConnectTimeoutMs'
    | 'databaseStatementTimeoutMs'
  >,
): DatabaseOptions {
  return {
    ...databaseOptions(config, config.databasePoolSize),
    timeouts: { connectMs: config.databaseConnectTimeoutMs, statementMs: config.databaseStatementTimeoutMs },
  };
}

/** One code path for both engines: Kysely → node-postgres → a server socket or PGlite in process. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl ? openServer(options.databaseUrl, options) : openEmbedded(options.dataDir, options);
}

async function openServer(url: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const schema = options.databaseSchema;
  if (schema) await ensureSchema(url, schema);
  const timeouts = options.timeouts;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    types,
    // A partition (packets dropped) must not hold a request or /readyz for as long as it lasts.
    keepAlive: true,
    ...(timeouts
      ? {
          connectionTimeoutMillis: timeouts.connectMs,
          statement_timeout: timeouts.statementMs,
          query_timeout: timeouts.statementMs + 1_000,
          idle_in_transaction_session_timeout: timeouts.statementMs * 2,
        }
      : {}),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool drops it and opens another on next use.
  });
  // Wrapped before the first connection is made, so every client gets its error listener.
  const preparing = preparingPool(pool, { dropFailedConnections: true });
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end();
    throw new DatabaseUnavailableError(`Cannot reach the PostgreSQL server (${describeUrl(url)}): ${(error as Error).message}`);
  }
  const db = new Kysely<Database>({
    dialect: new RedflagPostgresDialect({ pool: preparing }),
  });
  return { db, engine: 'server', pool, asyncCommits: serverAsyncCommits, close: () => db.destroy() };
}

async function ensureSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query(`create schema if not exists "${schema}"`);
  } catch (error) {
    throw new DatabaseUnavailableError(`Cannot reach the PostgreSQL server (${describeUrl(url)}): ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

async function openEmbedded(
  dataDir: string,
  options: Pick<DatabaseOptions, 'freezeLimits' | 'checkpoint' | 'diskReserveBytes'>,
): Promise<DatabaseHandle> {
  const lock = await lockDataDir(dataDir);
  let pglite: PGlite;
  let reserve: DiskReserve | undefined;
  const refusal = () => reserve?.refusal();
  try {
    // Before the reserve's first reading: the files a crash left may be what filled the disk.
    removeTempFilesLeftByACrash(dataDir);
    if (options.diskReserveBytes)
      reserve = keepDiskReserve(dataDir, options.diskReserveBytes, (message) => process.stderr.write(`${message}\n`));
    const kept = await withOtherDatabasesFrozen(await openPglite(dataDir), dataDir, options.freezeLimits ?? {});
    pglite = kept.pglite;
    if (kept.frozen.length > 0)
      process.stderr.write(`Vacuumed the embedded databases ${kept.frozen.join(', ')} against transaction id wraparound.\n`);
    for (const problem of kept.problems) process.stderr.write(`Against transaction id wraparound, ${problem}\n`);
  } catch (error) {
    reserve?.stop();
    lock.release();
    throw error;
  }
  // PGlite is one single-user PostgreSQL backend: one connection, queries queue in the pool. Its
  // in-process connection is never reaped: an idle timer, restarted at every release, would keep a
  // process that forgot to close alive for ever once the checkpointer looks each second.
  const pool = new pg.Pool({ ...pgliteClientConfig(pglite), max: 1, idleTimeoutMillis: 0, types });
  const db = new Kysely<Database>({
    dialect: new RedflagPostgresDialect({
      pool: preparingPool(pool, { dropFailedConnections: false, refusal }),
    }),
  });
  // The WAL flusher and the checkpointer go on under the disk reserve: a checkpoint is what frees
  // WAL segments, and the flush keeps asynchronous commits' one-second promise. Never destroyed:
  // it shares the pool, which `db` ends.
  const engineDb = new Kysely<Database>({
    dialect: new RedflagPostgresDialect({ pool: preparingPool(pool, { dropFailedConnections: false }) }),
  });
  const asyncCommits = createWalFlusher(engineDb, () => {
    // The next tick retries; a database that cannot commit fails louder elsewhere.
  });
  const checkpointer = createCheckpointer(
    engineDb,
    (error) =>
      process.stderr.write(
        `The embedded database's checkpoint failed, and is tried again each second: ${(error as Error).message}\n`,
      ),
    options.checkpoint,
  );
  return {
    db,
    engine: 'embedded',
    pool,
    asyncCommits,
    checkpoints: checkpointer.stats,
    refusal,
    async close() {
      try {
        // The checkpointer first: the close below writes the shutdown checkpoint anyway.
        await checkpointer.close();
        await asyncCommits.close();
        await db.destroy();
        await pglite.close();
      } finally {
        reserve?.stop();
        lock.release();
      }
    },
  };
}

/**
 * Before PGlite opens, under the data directory's lock. A file that cannot be removed is said and
 * left: it wastes disk, never data, so it does not stop a start.
 */
function removeTempFilesLeftByACrash(dataDir: string): void {
  const removed = removeCrashTempFiles(embeddedPgdata(dataDir));
  const crashed = 'that the embedded database left when it last stopped without closing';
  const size =
    removed.bytes < 1024 * 1024 ? `${Math.ceil(removed.bytes / 1024)} KB` : `${(removed.bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (removed.files > 0) process.stderr.write(`Removed ${removed.files} temporary file(s), ${size}, ${crashed}.\n`);
  if (removed.failed > 0)
    process.stderr.write(
      `Could not remove ${removed.failed} of the temporary files or folders ${crashed}; they are left: ${removed.firstFailure}\n`,
    );
}

/** The server's address without its password, for messages. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}
