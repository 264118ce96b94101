import path from 'node:path';
import { fileURLToPath } from 'node:url';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { type Config, loadConfig } from './config.js';
import { loadCrypto } from './crypto/load-crypto.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';

/** Opens the database, migrates it, listens; on SIGTERM/SIGINT stops accepting, drains, closes. */
export async function serve(config: Config = loadConfig()): Promise<void> {
  const startedAt = performance.now();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
    app = await buildApp({ config, database, crypto });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app?.close();
    await database.close();
    throw error;
  }
  const server = app;
  server.log.info(
    { engine: database.engine, startupMs: Math.round(performance.now() - startedAt) },
    `Redflag listening on ${config.host}:${config.port}`,
  );

  closeWithGrace({ delay: config.shutdownGraceMs }, async ({ signal, err }) => {
    if (err) server.log.error({ err }, 'shutting down after an unexpected error');
    else server.log.info({ signal }, 'shutting down');
    await server.close();
    await database.close();
  });
}

/** Start-up failures (bad configuration, database unreachable or locked) are one line, no stack. */
export function exitWithError(error: unknown): never {
  console.error(`redflag: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  serve().catch(exitWithError);
}
