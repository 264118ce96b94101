import cluster from 'node:cluster';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import closeWithGrace from 'close-with-grace';
import { superviseWorkers } from './cluster.js';
import { type Config, loadConfig } from './config.js';
import { sealClearTexts } from './crypto/seal-clear-texts.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import {
  type DatabaseHandle,
  type DatabaseOptions,
  databaseOptions,
  openDatabase,
  servingDatabaseOptions,
} from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { autovacuumAdviceOf } from './db/table-upkeep.js';
import { reindexLookalikeNames } from './identifiers/reindex-names.js';
import { searchMemoryAdviceOf } from './modules/search/search-memory.js';

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

/**
 * Runs the service: in this process, or with `REDFLAG_WORKERS` > 1 (server engine only) as a
 * primary that migrates and checks the root key once, then forks the workers that serve.
 */
export async function start(config: Config = loadConfig()): Promise<void> {
  if (config.workers <= 1 || cluster.isWorker) return serve(config, { migrate: cluster.isPrimary });
  await migrateOnServer(config);
  superviseWorkers({ workers: config.workers, logLevel: config.logLevel, shutdownGraceMs: config.shutdownGraceMs });
}

/**
 * Migrates a server on a connection of its own, without the serving pool's statement timeout: a
 * migration, and the sweep's rewrite of a table it cleaned, may take minutes. Loading the keys
 * checks the root key once, before any worker serves.
 */
async function migrateOnServer(config: Config): Promise<void> {
  const database = await openDatabase(databaseOptions(config, 1));
  try {
    await migrateToLatest(database.db);
    // Said by the process that migrates a server (PGlite has no autovacuum; the upkeep job stands in for it there).
    for (const advice of [await searchMemoryAdviceOf(database.db), await autovacuumAdviceOf(database.db)])
      if (advice) process.stderr.write(`${advice}\n`);
    const { loadCrypto } = await import('./crypto/load-crypto.js');
    await reindexNames(database.db, await loadCrypto({ db: database.db, config, engine: database.engine }));
  } finally {
    await database.close();
  }
}

/** Opens the database, migrates it, listens; on SIGTERM/SIGINT stops accepting, drains, closes. */
export async function serve(config: Config = loadConfig(), options: { migrate?: boolean } = {}): Promise<void> {
  const startedAt = performance.now();
  const migrate = options.migrate ?? true;
  // Migrations may run longer than a request's statement timeout: on a server they get a connection of their own.
  if (migrate && config.databaseUrl) await migrateOnServer(config);
  // The database opens (PGlite compiles its WebAssembly off the main thread) while the HTTP stack's
  // modules load: they were the two largest parts of a cold start, one after the other.
  const opening = openWhenFree(servingDatabaseOptions(config));
  opening.catch(() => {});
  const [{ buildApp }, { loadCrypto }, { runAdminCommand }, { startControlSocket }] = await Promise.all([
    import('./app.js'),
    import('./crypto/load-crypto.js'),
    import('./modules/admin/admin.commands.js'),
    import('./modules/admin/control-socket.js'),
  ]);
  const database = await opening;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let control: { close(): Promise<void> } | undefined;
  try {
    if (migrate && database.engine === 'embedded') await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
    // On a server, migrateOnServer did this on its own connection.
    if (migrate && database.engine === 'embedded') await reindexNames(database.db, crypto);
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
  // Route schemas are compiled on first use so that a restart answers sooner; the rest now, between requests.
  server.routeSchemas.compileRemaining().then(
    (count) => server.log.debug({ schemas: count }, 'route schemas compiled'),
    (err) => server.log.error({ err }, 'route schemas do not compile'),
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
  start().catch(exitWithError);
}

/** Names indexed under older rules are indexed again, and clear reasons sealed, once, by the process that migrates. */
async function reindexNames(
  db: Parameters<typeof reindexLookalikeNames>[0],
  crypto: Parameters<typeof reindexLookalikeNames>[1],
) {
  const count = await reindexLookalikeNames(db, crypto);
  if (count > 0) process.stderr.write(`Re-indexed ${count} account names (look-alike letters, invisible characters).\n`);
  // Texts stored in clear before their column was sealed (migrations 0016, 0032) are sealed once, by the same process.
  const sealed = await sealClearTexts(db, crypto.keyring);
  if (sealed > 0) process.stderr.write(`Sealed ${sealed} texts stored in clear before this version.\n`);
}
