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

describe('a share of the event loop for bulk work', () => {
  it('rests after work that kept the loop busy, long enough to bring it back to its share', async () => {
    const share = createLoopShare(0.5);
    holdLoop(40);
    const started = performance.now();
    await share.rest();
    // 40 ms busy at a share of one half: about 40 ms of rest.
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
  });

  it('does not rest when the loop was mostly idle since the last piece', async () => {
    const share = createLoopShare(0.5);
    await sleep(80);
    holdLoop(10);
    const started = performance.now();
    await share.rest();
    expect(performance.now() - started).toBeLessThan(25);
  });

  it('never rests longer than a quarter of a second', async () => {
    const share = createLoopShare(0.1);
    holdLoop(100);
    const started = performance.now();
    await share.rest();
    // 100 ms at a share of a tenth would be 900 ms of rest.
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(performance.now() - started).toBeLessThan(400);
  });
});
