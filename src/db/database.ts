import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { lockDataDir } from './data-dir-lock.js';
import { openPglite } from './embedded.js';
import { preparingPool } from './prepared-pool.js';
import type { Database } from './schema.js';

export type Engine = 'embedded' | 'server';

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /** The node-postgres pool both engines are reached through (for pool figures). */
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  /** Schema used on the server; created when missing. */
  databaseSchema?: string | undefined;
  dataDir: string;
  poolSize: number;
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
  config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>,
  poolSize: number,
): DatabaseOptions {
  return { databaseUrl: config.databaseUrl, databaseSchema: config.databaseSchema, dataDir: config.dataDir, poolSize };
}

/** One code path for both engines: Kysely → node-postgres → a server socket or PGlite in process. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl ? openServer(options.databaseUrl, options) : openEmbedded(options.dataDir);
}

async function openServer(url: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const schema = options.databaseSchema;
  if (schema) await ensureSchema(url, schema);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    types,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end();
    throw new DatabaseUnavailableError(`Cannot reach the PostgreSQL server (${describeUrl(url)}): ${(error as Error).message}`);
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
  return { db, engine: 'server', pool, close: () => db.destroy() };
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

async function openEmbedded(dataDir: string): Promise<DatabaseHandle> {
  const lock = lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    pglite = await openPglite(dataDir);
  } catch (error) {
    lock.release();
    throw error;
  }
  // PGlite is one single-user PostgreSQL backend: one connection, queries queue in the pool.
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, types });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
  return {
    db,
    engine: 'embedded',
    pool,
    async close() {
      try {
        await db.destroy();
        await pglite.close();
      } finally {
        lock.release();
      }
    },
  };
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
