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

async function timed(work: Promise<void>): Promise<number> {
  const started = performance.now();
  await work;
  return performance.now() - started;
}

describe('a share of the event loop for bulk work', () => {
  it('waits for what a piece took beyond its share of the loop', async () => {
    const share = createLoopShare(0.8);
    holdLoop(80);
    // 80 ms busy at a share of 0.8 makes a stretch of 100 ms: 20 ms more (100 if the time already
    // passed were not counted).
    const waited = await timed(share.rest());
    expect(waited).toBeGreaterThanOrEqual(15);
    expect(waited).toBeLessThan(90);
  });

  it('does not wait when the loop was idle enough since the last piece', async () => {
    const share = createLoopShare(0.5);
    await sleep(80);
    holdLoop(30);
    // 30 ms busy in 110: under half (30 ms of waiting if the idle time were not counted).
    expect(await timed(share.rest())).toBeLessThan(20);
  });

  it('counts its previous wait as idle time in the next stretch', async () => {
    const share = createLoopShare(0.5);
    holdLoop(40);
    expect(await timed(share.rest())).toBeGreaterThanOrEqual(30);
    holdLoop(40);
    // 40 ms of waiting and 40 busy: already half.
    expect(await timed(share.rest())).toBeLessThan(20);
  });

  it('never waits longer than a quarter of a second', async () => {
    const share = createLoopShare(0.05);
    holdLoop(100);
    // 100 ms at a share of a twentieth would be 1,900 ms.
    const waited = await timed(share.rest());
    expect(waited).toBeGreaterThanOrEqual(240);
    expect(waited).toBeLessThan(1000);
  });

  it("keeps to the caller's longest wait (an upload within its request's time limit)", async () => {
    const share = createLoopShare(0.05, 50);
    holdLoop(100);
    const waited = await timed(share.rest());
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(waited).toBeLessThan(200);
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
