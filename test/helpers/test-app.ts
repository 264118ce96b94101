import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  config: Config;
  /** Every log line the app wrote, as text. */
  logLines: string[];
  close(): Promise<void>;
}

export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ REDFLAG_DATA_DIR: dataDir, LOG_LEVEL: 'info' }), ...overrides };
}

/**
 * The real app on a fresh database of its own. `beforeReady` may add routes (for example a
 * route that throws) before the app is sealed.
 */
export async function buildTestApp(
  options: { config?: Partial<Config>; beforeReady?: (app: FastifyInstance) => void } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = testConfig(database.dataDir, options.config);
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({ config, database, logStream });
  options.beforeReady?.(app);
  await app.ready();
  return {
    app,
    database,
    config,
    logLines,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** Another instance of the service on the same database (as a second server process would be). */
export async function buildSiblingApp(t: TestApp, overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = await buildApp({
    config: { ...t.config, ...overrides },
    database: t.database,
    logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  await app.ready();
  return app;
}
