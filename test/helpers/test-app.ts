import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { loadCrypto } from '../../src/crypto/load-crypto.js';
import { newRootKeyText } from '../../src/crypto/root-key.js';
import type { Clock } from '../../src/jobs/clock.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  config: Config;
  /** Every log line the app wrote, as text. */
  logLines: string[];
  /** Stops the app, then its database; `keepFiles` leaves the embedded data directory for inspection. */
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ REDFLAG_DATA_DIR: dataDir, LOG_LEVEL: 'info' }), ...overrides };
}

/**
 * The real app on a fresh database of its own. `beforeReady` may add routes (for example a
 * route that throws) before the app is sealed.
 */
export async function buildTestApp(
  options: { config?: Partial<Config>; beforeReady?: (app: FastifyInstance) => void; now?: () => Date; clock?: Clock } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  // On a server several test files share one PostgreSQL but each has its own schema and key.
  const masterKey = database.engine === 'server' ? newRootKeyText() : undefined;
  const config = testConfig(database.dataDir, { masterKey, ...options.config });
  const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({
    config,
    database,
    crypto,
    logStream,
    now: options.now,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  options.beforeReady?.(app);
  await app.ready();
  return {
    app,
    database,
    config,
    logLines,
    async close(options) {
      await app.close();
      await database.close(options);
    },
  };
}

/** Another instance of the service on the same database (as a second server process would be). */
export async function buildSiblingApp(t: TestApp, overrides: Partial<Config> = {}, now?: () => Date): Promise<FastifyInstance> {
  const config = { ...t.config, ...overrides };
  const app = await buildApp({
    config,
    now,
    database: t.database,
    crypto: await loadCrypto({ db: t.database.db, config, engine: t.database.engine }),
    logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  await app.ready();
  return app;
}
