import { performance } from 'node:perf_hooks';
import { sleepUntil } from './sleep-until.js';

/** A wait is never longer than this unless asked: a screening job's lease (15 s) stays well alive. */
const MAX_REST_MS = 250;

/**
 * The share of a serving process's event loop that bulk work in it may keep busy (a screening
 * job's chunks, a customer file's upload), the requests it serves counted: beside a full load of
 * searches the work slows down; alone it slows only as far as its own part of the loop passes the
 * share (decisions 0098 and 0099).
 */
export const SERVING_LOOP_SHARE = 0.7;

/**
 * Paces bulk work that shares a serving process's event loop with requests (a screening job's
 * chunks, a customer file's upload): `rest()`, called between two pieces of the work, waits until
 * the loop has been at most `busyShare` busy since the previous `rest()` began — the work's own
 * time, the previous wait and the requests served meanwhile together. Requests never wait for
 * it: they are served while the work waits, so the more the process serves, the slower the work.
 *
 * The previous wait counts as idle time in the next stretch, so a wait only has to make up what
 * its own piece took beyond the share: work alone on the loop alternates a wait and none, about
 * 0.76 busy for a share of 0.7 (not held exactly to the share). That is the rule the bench
 * measured (decision 0098); holding it exactly would slow the work more.
 *
 * Why the loop and not a fixed pace: how busy the loop is already counts the load the process
 * carries and what the machine gives it, so the same rule holds on a slow machine and a fast one.
 */
export function createLoopShare(busyShare: number, maxRestMs = MAX_REST_MS) {
  if (!(busyShare > 0 && busyShare <= 1)) throw new RangeError(`busyShare must be in (0, 1], not ${busyShare}`);
  if (!(maxRestMs > 0)) throw new RangeError(`maxRestMs must be more than 0, not ${maxRestMs}`);
  let since = performance.eventLoopUtilization();
  return {
    /** Resolves with the milliseconds it chose to wait (0 when the stretch kept to the share). */
    async rest(): Promise<number> {
      const now = performance.eventLoopUtilization();
      // The stretch since the previous call began (its wait included): eventLoopUtilization(later, earlier).
      const stretch = performance.eventLoopUtilization(now, since);
      since = now;
      const restMs = stretch.active / busyShare - (stretch.active + stretch.idle);
      if (restMs < 1) return 0;
      const waitMs = Math.min(restMs, maxRestMs);
      await sleepUntil(performance.now() + waitMs);
      return waitMs;
    },
  };
}
