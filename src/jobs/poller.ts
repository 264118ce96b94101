import type { FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';

/** While passes keep failing, the failure is said again this often, with how many there were. */
const RESTATE_FAILURE_MS = 60_000;

/**
 * A worker loop every instance runs beside the scheduler, for work that should start within
 * `pollMs` (webhook deliveries, screening jobs): `pass` does one pass and says whether more is
 * waiting, in which case the next pass starts at once. Started when the app is ready, stopped
 * (the running pass awaited) when it closes.
 *
 * A run of failed passes is said once, again each minute it lasts or when the kind of failure
 * changes (an outage, or an error that is a bug), and when it ends: a pass every half second
 * through a ten-minute database outage would otherwise be up to 1,200 lines a loop.
 */
export function pollWhileBusy(app: FastifyInstance, what: string, pass: () => Promise<boolean>, pollMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let failedPasses = 0;
  let failingSince = 0;
  let saidAt = 0;
  let saidOutage = false;
  const failed = (err: unknown) => {
    const now = Date.now();
    // A database outage is expected to pass (503s meanwhile): a warning, like every request's.
    const outage = isDatabaseUnavailable(err);
    failedPasses += 1;
    if (failedPasses === 1) failingSince = now;
    else if (outage === saidOutage && now - saidAt < RESTATE_FAILURE_MS) return;
    saidAt = now;
    saidOutage = outage;
    app.log[outage ? 'warn' : 'error'](
      { err, failedPasses },
      failedPasses === 1 ? `${what} could not run; retrying` : `${what} still cannot run`,
    );
  };
  const succeeded = () => {
    if (failedPasses === 0) return;
    app.log.info(
      { failedPasses, seconds: Math.round((Date.now() - failingSince) / 1000) },
      `${what} runs again after ${failedPasses} failed ${failedPasses === 1 ? 'pass' : 'passes'}`,
    );
    failedPasses = 0;
  };
  const loop = () => {
    running = pass()
      .then(
        (more) => {
          succeeded();
          return more;
        },
        (err: unknown) => {
          failed(err);
          return false;
        },
      )
      .then((more) => {
        if (stopped) return;
        timer = setTimeout(loop, more ? 0 : pollMs);
        timer.unref();
      });
  };
  app.addHook('onReady', async () => {
    timer = setTimeout(loop, pollMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
