import { AppError } from './errors.js';

const WINDOW_MS = 60_000;
/** Addresses tracked at once; beyond it the oldest windows are dropped (memory stays bounded). */
const MAX_ADDRESSES = 50_000;

/**
 * Counts failed key checks per client address in one-minute windows. The per-key rate limit cannot
 * stop a stranger (no key, no counter), so an address that keeps failing gets 429 instead of 401
 * for its failing attempts until its window ends. A valid key from that address still works: the
 * guard is consulted only after a key failed (each attempt still costs its one indexed lookup;
 * a malformed key none, its checksum fails first).
 */
export function createFailedKeyGuard(maxFailuresPerMinute: number, now: () => number = Date.now) {
  const windows = new Map<string, { startedAt: number; failures: number }>();

  function current(address: string) {
    const window = windows.get(address);
    if (!window || now() - window.startedAt >= WINDOW_MS) return undefined;
    return window;
  }

  return {
    /** Throws RATE_LIMITED when this address has failed too often in its current window. */
    check(address: string): void {
      const window = current(address);
      if (window && window.failures >= maxFailuresPerMinute) {
        const retryAfter = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now()) / 1000));
        throw new AppError('RATE_LIMITED', `Too many failed API key checks from this address; retry in ${retryAfter} s`, {
          retryAfter,
        });
      }
    },

    recordFailure(address: string): void {
      const window = current(address);
      if (window) {
        window.failures++;
        return;
      }
      windows.delete(address);
      if (windows.size >= MAX_ADDRESSES) {
        for (const [key, w] of windows)
          if (now() - w.startedAt >= WINDOW_MS || windows.size >= MAX_ADDRESSES) windows.delete(key);
      }
      windows.set(address, { startedAt: now(), failures: 1 });
    },
  };
}

export type FailedKeyGuard = ReturnType<typeof createFailedKeyGuard>;
