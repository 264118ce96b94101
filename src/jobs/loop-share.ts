import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** A rest is never longer than this: the job's lease (15 s) stays well alive. */
const MAX_REST_MS = 250;

/**
 * Paces bulk work that shares a serving process's event loop with requests (a screening job's
 * chunks): `rest()`, called between two pieces of the work, waits until the loop has been at most
 * `busyShare` busy since the previous call — the work's own time and the requests served
 * meanwhile together. Requests never wait for it: they are served while the work rests, so the
 * more the process serves, the slower the work; with nothing else to do it does not rest at all
 * while its own share of the loop stays under `busyShare`.
 *
 * Why the loop and not a fixed pace: how busy the loop is already counts what the machine gives
 * this process, so the same rule holds on a slow machine and a fast one (decision 0098).
 */
export function createLoopShare(busyShare: number) {
  let since = performance.eventLoopUtilization();
  return {
    async rest(): Promise<void> {
      const now = performance.eventLoopUtilization();
      const window = performance.eventLoopUtilization(now, since);
      since = now;
      // The rest counts in the next window: the loop is held to its share over time, not per piece.
      const restMs = window.active / busyShare - (window.active + window.idle);
      if (restMs >= 1) await sleep(Math.min(restMs, MAX_REST_MS));
    },
  };
}

export type LoopShare = ReturnType<typeof createLoopShare>;
