import path from 'node:path';
import { fileURLToPath } from 'node:url';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { type Config, loadConfig } from './config.js';
import { loadCrypto } from './crypto/load-crypto.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { type DatabaseHandle, type DatabaseOptions, databaseOptions, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { runAdminCommand } from './modules/admin/admin.commands.js';
import { startControlSocket } from './modules/admin/control-socket.js';

/** An administration command (`redflag key revoke ...`) may hold the embedded data for a moment. */
const WAIT_FOR_DATA_DIR_MS = 15_000;

async function openWhenFree(options: DatabaseOptions): Promise<DatabaseHandle> {
  const deadline = Date.now() + WAIT_FOR_DATA_DIR_MS;
  for (;;) {
    try {
      return await openDatabase(options);
    } catch (error) {
      if (!(error instanceof DataDirLockedError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Opens the database, migrates it, listens; on SIGTERM/SIGINT stops accepting, drains, closes. */
export async function serve(config: Config = loadConfig()): Promise<void> {
  const startedAt = performance.now();
  const database = await openWhenFree(databaseOptions(config, config.databasePoolSize));
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let control: { close(): Promise<void> } | undefined;
  try {
    await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
    app = await buildApp({ config, database, crypto });
    await app.listen({ port: config.port, host: config.host });
    const server = app;
    // Only one process can open the embedded data, so `redflag company|key|operator` come through here.
    if (database.engine === 'embedded') {
      control = await startControlSocket({
        socketPath: config.controlSocketPath,
        handle: (command, args) => runAdminCommand(server.admin, command, args),
        log: server.log,
      });
    }
  } catch (error) {
    await control?.close();
    await app?.close();
    await database.close();
    throw error;
  }
  const server = app;
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  server.log.info(
    { engine: database.engine, port, startupMs: Math.round(performance.now() - startedAt) },
    `Redflag listening on ${config.host}:${port}`,
  );

  closeWithGrace({ delay: config.shutdownGraceMs }, async ({ signal, err }) => {
    if (err) server.log.error({ err }, 'shutting down after an unexpected error');
    else server.log.info({ signal }, 'shutting down');
    await control?.close();
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
