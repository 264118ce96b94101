import type { Config } from '../../config.js';
import { DataDirLockedError } from '../../db/data-dir-lock.js';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { openRedisLink } from '../../redis/redis-link.js';
import { createKeyEvents } from '../keys/key-events.js';
import { type AdminCommandName, createAdminServices, runAdminCommand } from './admin.commands.js';
import { ControlSocketUnavailableError, sendControlCommand } from './control-socket.js';

/** How long a command waits for a data directory held by a process that is not (yet) answering on the socket. */
const WAIT_FOR_DATA_DIR_MS = 30_000;
const RETRY_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The CLI's own database session: open, migrate, run one command, close. */
async function runInProcess(config: Config, name: AdminCommandName, args: object): Promise<unknown> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    dataDir: config.dataDir,
    poolSize: 1,
  });
  try {
    await migrateToLatest(database.db);
    // Running servers learn about a revocation at once through Redis; without it, within 5 s anyway.
    const redis = config.redisUrl
      ? openRedisLink(config.redisUrl, {
          prefix: config.redisPrefix,
          log: {
            info() {},
            warn() {
              process.stderr.write('redflag: warning: Redis unreachable; running servers see the change within 5 s\n');
            },
          },
        })
      : undefined;
    await redis?.waitUntilReady(2_000);
    const events = createKeyEvents({ redis });
    try {
      return await runAdminCommand(createAdminServices({ db: database.db, events }), name, args);
    } finally {
      await events.close();
      await redis?.close();
    }
  } finally {
    await database.close();
  }
}

class StillLockedError extends Error {}

/**
 * Runs an administration command wherever the data is:
 * - `DATABASE_URL` set: straight against the PostgreSQL server (many processes may connect);
 * - a server running on the embedded data directory: through its control socket;
 * - nobody holding it: in this process.
 * A directory held by a process that does not answer yet (a server still starting, another
 * command finishing) is waited for, so a newcomer never meets a lock error.
 */
export async function runAdminCommandAnywhere(config: Config, name: AdminCommandName, args: object): Promise<unknown> {
  if (config.databaseUrl) return runInProcess(config, name, args);
  const deadline = Date.now() + WAIT_FOR_DATA_DIR_MS;
  let holder: DataDirLockedError | undefined;
  for (;;) {
    try {
      return await sendControlCommand(config.controlSocketPath, name, args);
    } catch (error) {
      if (!(error instanceof ControlSocketUnavailableError)) throw error;
    }
    try {
      return await runInProcess(config, name, args);
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      holder = error;
    }
    if (Date.now() > deadline) {
      throw new StillLockedError(
        `Redflag process ${holder.pid} holds ${config.dataDir} but does not answer on ${config.controlSocketPath}; ` +
          'if it is a server, restart it and try again',
      );
    }
    await sleep(RETRY_MS);
  }
}
