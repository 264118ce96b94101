import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createPace } from '../src/jobs/pace.js';

/**
 * Upper bounds are asserted on the wait the pace chose, the wall clock only from below (the pace
 * sleeps again when a timer fires early, so it ends less than 1 ms before due): on a loaded
 * machine a timer can fire tens of milliseconds late.
 */
async function timed(pace: ReturnType<typeof createPace>, items: number) {
  const started = performance.now();
  const chose = await pace.after(items);
  return { chose, took: performance.now() - started };
}

describe('a pace for bulk work', () => {
  it('waits until the items done are due at its rate', async () => {
    const pace = createPace(1_000);
    // 100 items at 1,000 a second are due 100 ms after the start.
    const { chose, took } = await timed(pace, 100);
    expect(chose).toBeGreaterThan(50);
    expect(chose).toBeLessThanOrEqual(100);
    expect(took).toBeGreaterThanOrEqual(chose - 1);
  });

  it('keeps an absolute schedule: time spent elsewhere is not waited again', async () => {
    const pace = createPace(1_000);
    await sleep(150);
    // 100 items were due at 100 ms; 150 ms have passed.
    expect(await pace.after(100)).toBe(0);
    // 1,100 items are due at 1,100 ms: only what is left of it, however late the sleep woke.
    const { chose } = await timed(pace, 1_000);
    expect(chose).toBeGreaterThan(0);
    expect(chose).toBeLessThanOrEqual(951);
  });

  it('counts every call: the total is held to the rate, not each call', async () => {
    const started = performance.now();
    const pace = createPace(2_000);
    for (let i = 0; i < 4; i++) await pace.after(100);
    // 400 items at 2,000 a second: 200 ms at least, however they were split.
    expect(performance.now() - started).toBeGreaterThanOrEqual(199);
  });

  it('refuses a count that is not finite rather than waiting for ever', async () => {
    const pace = createPace(1_000);
    await expect(pace.after(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    await expect(pace.after(Number.NaN)).rejects.toThrow(RangeError);
  });

  it('never waits without a rate (0)', async () => {
    const pace = createPace(0);
    expect(await pace.after(1_000_000)).toBe(0);
    expect(await pace.after(1_000_000)).toBe(0);
  });
});
