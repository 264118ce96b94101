import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/** How long an asynchronously committed row may wait for its WAL flush on the embedded engine. */
export const ASYNC_COMMIT_FLUSH_MS = 1_000;

export interface AsyncCommits {
  /** Call after a transaction committed with `synchronous_commit = off`. */
  note(): void;
  /** Flushes what is pending and stops. */
  close(): Promise<void>;
}

/**
 * A PostgreSQL server's WAL writer flushes asynchronously committed transactions within
 * 3 × wal_writer_delay (600 ms by default). PGlite is a single-user backend with no WAL writer:
 * without help such a commit would reach the disk only with the next synchronous commit or
 * checkpoint. This is that help: at most once a second, if anything was committed asynchronously,
 * a transaction that takes an xid commits synchronously, which flushes the WAL up to it.
 */
export function createWalFlusher(db: Kysely<Database>, onError: (error: unknown) => void): AsyncCommits {
  let pending = false;
  let running: Promise<void> | undefined;
  const flush = async () => {
    if (!pending) return;
    pending = false;
    try {
      await sql`select txid_current()`.execute(db);
    } catch (error) {
      pending = true;
      onError(error);
    }
  };
  const timer = setInterval(() => {
    running ??= flush().finally(() => {
      running = undefined;
    });
  }, ASYNC_COMMIT_FLUSH_MS);
  timer.unref();
  return {
    note() {
      pending = true;
    },
    async close() {
      clearInterval(timer);
      await running;
      await flush();
    },
  };
}

/** On a server the WAL writer does it: nothing to track. */
export const serverAsyncCommits: AsyncCommits = {
  note() {},
  async close() {},
};
