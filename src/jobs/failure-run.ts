import { isDatabaseUnavailable } from '../db/unavailable.js';

/** While attempts keep failing, the failure is said again this often, with how many there were. */
export const RESTATE_FAILURE_MS = 60_000;

export interface FailureRunLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface FailureRun {
  /** An attempt failed: said if it starts a run, if the run has gone unsaid a minute, or if its kind changed. */
  failed(error: unknown): void;
  /** An attempt succeeded: said only if it ends a run of failures. */
  succeeded(): void;
}

/**
 * How a loop that retries by itself (a poller, the instance lease's renewal, the scheduler's tick)
 * tells the log about failing: a run of failed attempts is said when it starts, again each minute
 * it lasts or when its kind changes (an outage, or an error that is a bug), and when it ends. Said
 * at every attempt, a ten-minute database outage would be up to 1,200 lines from a poller passing
 * every half second, and as many from the lease renewed twice a second.
 *
 * A database outage is a warning, as every request's 503 is; any other error is an error.
 */
export function createFailureRun(log: FailureRunLog, what: string, now: () => number = Date.now): FailureRun {
  // A logger that throws (its stream ended at shutdown) must neither stop the loop nor become an
  // unhandled rejection of the promise the loop left running.
  const say = (level: keyof FailureRunLog, obj: object, msg: string) => {
    try {
      log[level](obj, msg);
    } catch {}
  };
  let failedAttempts = 0;
  let failingSince = 0;
  let saidAt = 0;
  let saidOutage = false;
  return {
    failed(err) {
      const at = now();
      const outage = isDatabaseUnavailable(err);
      failedAttempts += 1;
      if (failedAttempts === 1) failingSince = at;
      else if (outage === saidOutage && at - saidAt < RESTATE_FAILURE_MS) return;
      saidAt = at;
      saidOutage = outage;
      say(
        outage ? 'warn' : 'error',
        { err, failedAttempts },
        failedAttempts === 1 ? `${what} could not run; retrying` : `${what} still cannot run`,
      );
    },
    succeeded() {
      if (failedAttempts === 0) return;
      say(
        'info',
        { failedAttempts, seconds: Math.round((now() - failingSince) / 1000) },
        `${what} runs again after ${failedAttempts} failed ${failedAttempts === 1 ? 'attempt' : 'attempts'}`,
      );
      failedAttempts = 0;
    },
  };
}
