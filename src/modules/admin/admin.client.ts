import type { Config } from '../../config.js';
import { DataDirLockedError } from '../../db/data-dir-lock.js';
import type { AdminCommandName } from './admin.commands.js';
import { ControlSocketUnavailableError, sendControlCommand } from './control-socket.js';

/** How long a command waits for a data directory held by a process that is not (yet) answering on the socket. */
const WAIT_FOR_DATA_DIR_MS = 30_000;
const RETRY_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Loaded only when the command runs in this process: the database engines, Kysely and the
 * services take a second to import, which a command sent to the server does not need to pay.
 */
async function runInProcess(config: Config, name: AdminCommandName, args: object): Promise<unknown> {
  const local = await import('./admin.local.js');
  return local.runInProcess(config, name, args);
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
