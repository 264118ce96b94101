import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** A rest is never longer than this: an upload's connection and a job's lease stay well alive. */
const MAX_REST_MS = 250;

/**
 * Paces bulk work that shares a serving process's event loop with requests (a screening file
 * being read and stored): `rest()`, called between two pieces of the work, waits until the loop
 * has been at most `busyShare` busy since the previous call — the work's own time and the
 * requests served meanwhile together. Requests never wait for it: they are served while the work
 * rests, so the busier the process, the slower the work.
 *
 * Why the loop and not a fixed pace: how busy the loop is already counts what the machine gives
 * this process, so the same rule slows the work on a busy slow machine and leaves it near full
 * speed on an idle fast one (decision 0098).
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
