import cluster, { type Worker } from 'node:cluster';
import pino from 'pino';

export interface SuperviseOptions {
  workers: number;
  logLevel: string;
  /** How long a worker may take to drain after SIGTERM before it is killed. */
  shutdownGraceMs: number;
}

/**
 * The primary of `REDFLAG_WORKERS` > 1: forks the workers (each runs the whole service; Node's
 * cluster shares the listening port between them), replaces a worker that dies after it was
 * serving, and on SIGTERM/SIGINT asks every worker to drain and exits when the last one has.
 * A worker that dies before it listens is a start-up failure (port taken, database unreachable):
 * the primary stops the others and exits 1 rather than restarting it in a loop.
 */
export function superviseWorkers(options: SuperviseOptions): void {
  const log = pino({ level: options.logLevel });
  const listening = new WeakSet<Worker>();
  let stopping = false;
  let exitCode = 0;

  const fork = () => {
    const worker = cluster.fork();
    worker.once('listening', () => listening.add(worker));
  };

  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    if (workers.length === 0) process.exit(code);
    for (const worker of workers) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, options.shutdownGraceMs + 5_000).unref();
  };

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    if (!listening.has(worker)) {
      log.error({ pid: worker.process.pid, code, signal }, 'a worker failed to start; stopping');
      stopAll(1);
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'a worker died; starting another');
    fork();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      log.info({ signal }, 'shutting down the workers');
      stopAll(0);
    });
  }
  for (let i = 0; i < options.workers; i++) fork();
  log.info({ workers: options.workers }, 'Redflag primary started its workers');
}
