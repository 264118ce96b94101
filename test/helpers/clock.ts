import { DAY_MS } from '../../src/jobs/clock.js';

/** A clock a test moves: starts at the real time, then only moves when told. */
export function movableClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advanceDays(days: number) {
      offsetMs += days * DAY_MS;
    },
    reset() {
      offsetMs = 0;
    },
  };
}
