import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Sleeps until less than 1 ms before `deadline` (a `performance.now()` time). A timer may fire up
 * to ~2 ms early against performance.now(): Node truncates its delay to whole milliseconds and
 * starts it at libuv's loop time, whole milliseconds too (perhaps of a coarse clock). CI once saw a
 * 99.9 ms wait end after 98.3 ms, so this sleeps again until due.
 */
export async function sleepUntil(deadline: number): Promise<void> {
  for (let left = deadline - performance.now(); left >= 1; left = deadline - performance.now()) await sleep(left);
}
