import cliProgress from 'cli-progress';
import { type Config, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { type DatabaseHandle, databaseOptions, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { type Crypto, loadCrypto } from './load-crypto.js';

export interface CommandContext {
  config: Config;
  database: DatabaseHandle;
  crypto: Crypto;
  /** A progress bar on a terminal (nothing with --json or when stderr is not a TTY). */
  progress: { start(total: number): void; update(done: number): void };
}

/** Opens the configured database for a `crypto ...` command, migrates it and checks the root key. */
export async function withCryptoCommand<T>(
  name: string,
  options: { json?: boolean; unit: string },
  run: (context: CommandContext) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  let database: DatabaseHandle;
  try {
    database = await openDatabase(databaseOptions(config, 2));
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    // Working through a running server's socket would hold its only connection for minutes.
    throw new Error(
      `crypto ${name} needs the embedded database to itself, and a Redflag process (pid ${error.pid}) is using ${error.dataDir}. ` +
        `Stop the server, run npx redflag crypto ${name}, then start the server again.`,
    );
  }
  const bar =
    !options.json && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          { format: `{bar} {percentage}% | {value}/{total} ${options.unit} | ETA {eta_formatted}`, hideCursor: true },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  try {
    await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
    return await run({
      config,
      database,
      crypto,
      progress: {
        start: (total) => {
          if (total > 0) bar?.start(total, 0);
        },
        update: (done) => bar?.update(done),
      },
    });
  } finally {
    bar?.stop();
    await database.close();
  }
}
