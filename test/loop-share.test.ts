import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createLoopShare } from '../src/jobs/loop-share.js';

/** Holds the event loop for `ms`, as a piece of bulk work does. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/**
 * The wait `rest()` chose and how long it really took. Upper bounds are asserted on the choice:
 * on a loaded machine (CI runs the suite beside PostgreSQL) a timer of a few milliseconds can fire
 * tens of milliseconds late, so the wall clock gives lower bounds (a rest sleeps again when its
 * timer fires early, so it ends less than 1 ms short) and only ceilings far from a wrong answer.
 */
async function rested(share: ReturnType<typeof createLoopShare>): Promise<{ chose: number; took: number }> {
  const started = performance.now();
  const chose = await share.rest();
  return { chose, took: performance.now() - started };
}

describe('a share of the event loop for bulk work', () => {
  it('waits for what a piece took beyond its share of the loop', async () => {
    const share = createLoopShare(0.8);
    holdLoop(80);
    // 80 ms busy at a share of 0.8 makes a stretch of 100 ms: 20 ms more (100 if the time already
    // passed were not counted).
    const { chose, took } = await rested(share);
    expect(chose).toBeGreaterThanOrEqual(15);
    expect(chose).toBeLessThan(60);
    expect(took).toBeGreaterThanOrEqual(chose - 1);
  });

  it('does not wait when the loop was idle enough since the last piece', async () => {
    const share = createLoopShare(0.5);
    await sleep(200);
    holdLoop(30);
    // 30 ms busy in 230: under half (30 ms of waiting if the idle time were not counted). The idle
    // 200 ms leave room for busy time a loaded machine adds (see below).
    expect((await rested(share)).chose).toBe(0);
  });

  it('counts its previous wait as idle time in the next stretch', async () => {
    const share = createLoopShare(0.5);
    holdLoop(200);
    const first = await rested(share);
    expect(first.chose).toBeGreaterThanOrEqual(190);
    expect(first.took).toBeGreaterThanOrEqual(189);
    holdLoop(200);
    // 200 ms of waiting and 200 busy: already half, so about 0. Were the wait not counted, 200 ms
    // again. The margin is wide because the loop's busy time is wall-clock time: on a loaded CI
    // machine a process descheduled while busy (the timer's callback, the test's own lines) counts
    // that as busy too; CI once saw 63 ms chosen where 0 was due (with 100 ms pieces).
    expect((await rested(share)).chose).toBeLessThan(150);
  });

  it('never waits longer than a quarter of a second', async () => {
    const share = createLoopShare(0.05);
    holdLoop(100);
    // 100 ms at a share of a twentieth would be 1,900 ms.
    const { chose, took } = await rested(share);
    expect(chose).toBe(250);
    expect(took).toBeGreaterThanOrEqual(249);
    expect(took).toBeLessThan(1_500);
  });

  it("keeps to the caller's longest wait (an upload within its request's time limit)", async () => {
    const share = createLoopShare(0.05, 50);
    holdLoop(100);
    const { chose, took } = await rested(share);
    expect(chose).toBe(50);
    expect(took).toBeGreaterThanOrEqual(49);
    expect(took).toBeLessThan(1_000);
    expect(() => createLoopShare(0.5, 0)).toThrow(RangeError);
    expect(() => createLoopShare(0.5, -1)).toThrow(RangeError);
    expect(() => createLoopShare(0.5, Number.NaN)).toThrow(RangeError);
  });

  it('refuses a share outside (0, 1]', () => {
    expect(() => createLoopShare(0)).toThrow(RangeError);
    expect(() => createLoopShare(Number.NaN)).toThrow(RangeError);
    expect(() => createLoopShare(1.5)).toThrow(RangeError);
  });
});
