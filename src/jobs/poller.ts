import type { FastifyInstance } from 'fastify';
import { createFailureRun } from './failure-run.js';

/**
 * A worker loop every instance runs beside the scheduler, for work that should start within
 * `pollMs` (webhook deliveries, screening jobs): `pass` does one pass and says whether more is
 * waiting, in which case the next pass starts at once. Started when the app is ready, stopped
 * (the running pass awaited) when it closes. A run of failed passes is said as failure-run.ts
 * says it, not at every pass.
 */
export function pollWhileBusy(app: FastifyInstance, what: string, pass: () => Promise<boolean>, pollMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const failures = createFailureRun(app.log, what);
  const loop = () => {
    running = pass()
      .then(
        (more) => {
          failures.succeeded();
          return more;
        },
        (err: unknown) => {
          failures.failed(err);
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
