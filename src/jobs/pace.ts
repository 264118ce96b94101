import { sleepUntil } from './sleep-until.js';

/**
 * Holds bulk work to at most `perSecond` items a second from its start: `after(n)`, called once `n`
 * more items are done, waits until the schedule allows them (0 or less: no cap, never waits). The
 * schedule is absolute, so time lost elsewhere (a slow chunk, another wait) is not waited again:
 * work slower than the cap never waits, and work faster only as much as it is ahead.
 *
 * A ceiling beside the share of the event loop (loop-share.ts), which on a fast machine still lets
 * bulk work run as fast as the cores allow (decision 0100).
 */
export function createPace(perSecond: number) {
  const started = performance.now();
  let done = 0;
  return {
    /** Resolves with the milliseconds it chose to wait (0 when the work is not ahead). */
    async after(items: number): Promise<number> {
      // A count that is not finite would make the schedule, and the wait below, endless.
      if (!Number.isFinite(items)) throw new RangeError(`items must be a finite count, not ${items}`);
      done += items;
      if (!(perSecond > 0)) return 0;
      const dueAt = started + (done / perSecond) * 1000;
      const waitMs = dueAt - performance.now();
      if (waitMs < 1) return 0;
      await sleepUntil(dueAt);
      return waitMs;
    },
  };
}
