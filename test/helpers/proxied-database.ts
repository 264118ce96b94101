import { Writable } from 'node:stream';
import pg from 'pg';
import { startTcpProxy, type TcpProxy } from '../../chaos/tcp-proxy.js';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { loadCrypto } from '../../src/crypto/load-crypto.js';
import { newRootKeyText } from '../../src/crypto/root-key.js';
import { databaseOptions, openDatabase, servingDatabaseOptions } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type TestApp, testConfig } from './test-app.js';
import { serverSchemaName, serverUrl } from './test-database.js';

export interface ProxiedApp extends TestApp {
  proxy: TcpProxy;
  /** The application_name this app's connections carry, so a test ends only its own backends. */
  applicationName: string;
  /** pg_terminate_backend on every connection of this app; resolves with how many were ended. */
  terminateBackends(): Promise<number>;
}

/**
 * The real app on the PostgreSQL server, reached through a TCP proxy of the test's own on `port`
 * (the shared server is never stopped): the proxy refuses, resets or blackholes the link.
 */
export async function buildProxiedApp(port: number, overrides: Partial<Config> = {}): Promise<ProxiedApp> {
  if (!serverUrl) throw new Error('needs TEST_DATABASE_URL');
  const target = new URL(serverUrl);
  const proxy = await startTcpProxy({ port, targetPort: Number(target.port || 5432), targetHost: target.hostname });
  const applicationName = `redflag-fault-${process.pid}-${port}`;
  const proxied = new URL(serverUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  proxied.searchParams.set('application_name', applicationName);
  const schema = serverSchemaName();
  const config = testConfig('/nonexistent-redflag-data', {
    databaseUrl: proxied.toString(),
    databaseSchema: schema,
    masterKey: newRootKeyText(),
    databasePoolSize: 4,
    databaseConnectTimeoutMs: 500,
    databaseStatementTimeoutMs: 1_000,
    readyTimeoutMs: 500,
    ...overrides,
  });
  const migrating = await openDatabase(databaseOptions(config, 1));
  await migrateToLatest(migrating.db);
  await migrating.close();
  const database = await openDatabase(servingDatabaseOptions(config));
  const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({ config, database, crypto, logStream });
  await app.ready();
  return {
    app,
    database: { ...database, dataDir: config.dataDir, schema, close: () => database.close() },
    config,
    logLines,
    proxy,
    applicationName,
    async terminateBackends() {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1',
          [applicationName],
        );
        return rows[0].n as number;
      } finally {
        await admin.end();
      }
    },
    async close() {
      await proxy.setMode('pass');
      await app.close();
      await database.close();
      await proxy.close();
    },
  };
}
