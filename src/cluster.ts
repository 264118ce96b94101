import cluster, { type Worker } from 'node:cluster';
import pino from 'pino';

export interface SuperviseOptions {
  workers: number;
  logLevel: string;
  /** How long a worker may take to drain after SIGTERM before it is killed. */
  shutdownGraceMs: number;
}

/** The first restart is quick; each failure in a row doubles the wait, up to half a minute. */
const FIRST_RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that served this long before it died counts as healthy: the next restart is quick again. */
const HEALTHY_AFTER_MS = 30_000;

export function restartDelayMs(failuresInARow: number): number {
  return Math.min(FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, failuresInARow - 1), MAX_RESTART_DELAY_MS);
}

/**
 * The primary of `REDFLAG_WORKERS` > 1: forks the workers (each runs the whole service; Node's
 * cluster shares the listening port between them) and replaces every worker that dies — one that
 * crashed while serving, or one that could not start because the database was away — with a delay
 * that grows while they keep failing, and never gives up: a database outage must not leave the
 * machine with no service once the database is back. On SIGTERM/SIGINT it asks every worker to
 * drain and exits when the last one has.
 */
export function superviseWorkers(options: SuperviseOptions): void {
  const log = pino({ level: options.logLevel });
  const listeningSince = new WeakMap<Worker, number>();
  let failuresInARow = 0;
  let stopping = false;
  const pendingRestarts = new Set<NodeJS.Timeout>();

  const fork = () => {
    const worker = cluster.fork();
    worker.once('listening', () => listeningSince.set(worker, Date.now()));
  };

  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    for (const timer of pendingRestarts) clearTimeout(timer);
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, options.shutdownGraceMs + 5_000).unref();
  };

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    const since = listeningSince.get(worker);
    failuresInARow = since !== undefined && Date.now() - since >= HEALTHY_AFTER_MS ? 1 : failuresInARow + 1;
    const delayMs = restartDelayMs(failuresInARow);
    log.error(
      { pid: worker.process.pid, code, signal, wasServing: since !== undefined, restartInMs: delayMs },
      since === undefined ? 'a worker failed to start; starting another' : 'a worker died; starting another',
    );
    const timer = setTimeout(() => {
      pendingRestarts.delete(timer);
      if (!stopping) fork();
    }, delayMs);
    pendingRestarts.add(timer);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      log.info({ signal }, 'shutting down the workers');
      stopAll();
    });
  }
  for (let i = 0; i < options.workers; i++) fork();
  log.info({ workers: options.workers }, 'Redflag primary started its workers');
}
