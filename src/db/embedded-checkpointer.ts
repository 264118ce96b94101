import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/**
 * WAL written since the last checkpoint's redo point past which the embedded engine checkpoints.
 * A crash replays what lies after that point: about 15 ms a megabyte on the 2-core bench machine,
 * so typically about half a second on top of a restart's 1.8 s (decision 0109).
 */
export const CHECKPOINT_WAL_BYTES = 32 * 1024 * 1024;
/** How often the WAL written is looked at: one short query on the one connection. */
export const CHECKPOINT_CHECK_MS = 1_000;

export interface CheckpointerOptions {
  walBytes?: number;
  checkEveryMs?: number;
}

/** What the checkpointer did since the process opened the database, for `/metrics`. */
export interface CheckpointStats {
  count: number;
  /** Time spent in `CHECKPOINT`, while requests waited (with the turn of the event loop each statement waits for). */
  seconds: number;
}

export interface Checkpointer {
  stats(): CheckpointStats;
  /** Stops looking (the close that follows writes the shutdown checkpoint). */
  close(): Promise<void>;
}

/**
 * A PostgreSQL server's checkpointer process checkpoints every `checkpoint_timeout` and whenever
 * the WAL written since the last checkpoint nears `max_wal_size`. PGlite is PostgreSQL in
 * single-user mode: there is no checkpointer, and the WAL-volume trigger in `XLogWrite` runs only
 * under a postmaster (`IsUnderPostmaster`). Left alone, an embedded registry checkpoints only at a
 * clean stop: `pg_wal` grows by every audited search and screened row for as long as it runs
 * (625 MB after 625 MB of writes, `max_wal_size` notwithstanding), and a `kill -9` then replays
 * all of it before the next start answers (11.8 s for those 625 MB). This is the checkpointer's
 * volume trigger: each second, the distance from the last redo point; past the bound, `CHECKPOINT`,
 * which also recycles the segments no longer needed. The bound is what a crash typically replays,
 * not a limit: the check runs between statements, and one large statement (an index build, a
 * vacuum) can write past it first. PGlite runs on Node's main thread, so requests wait while a
 * checkpoint writes the dirty shared buffers (at most 32 MB of them) and syncs the files written
 * since the last one: 44–103 ms each during a screening job.
 */
export function createCheckpointer(
  db: Kysely<Database>,
  /** Told the first failure of a run of them: each tick tries again. */
  onError: (error: unknown) => void,
  options: CheckpointerOptions = {},
): Checkpointer {
  const walBytes = options.walBytes ?? CHECKPOINT_WAL_BYTES;
  let running: Promise<void> | undefined;
  let failing = false;
  const stats: CheckpointStats = { count: 0, seconds: 0 };
  // Both statements on one connection, so that the time counted is the checkpoint's own, not the
  // wait for the connection behind the requests queued before it.
  const check = (): Promise<boolean> =>
    db.connection().execute(async (connection) => {
      const { rows } = await sql<{ since: number }>`
        select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 as since from pg_control_checkpoint()`.execute(
        connection,
      );
      if ((rows[0]?.since ?? 0) < walBytes) return false;
      const started = performance.now();
      await sql`checkpoint`.execute(connection);
      stats.count += 1;
      stats.seconds += (performance.now() - started) / 1000;
      return true;
    });
  const timer = setInterval(() => {
    // One check at a time: a tick that finds one still running (a slow checkpoint) lets it be.
    running ??= check()
      .then(
        () => {
          failing = false;
        },
        (error) => {
          if (!failing) onError(error);
          failing = true;
        },
      )
      .finally(() => {
        running = undefined;
      });
  }, options.checkEveryMs ?? CHECKPOINT_CHECK_MS);
  timer.unref();
  return {
    stats: () => ({ ...stats }),
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
