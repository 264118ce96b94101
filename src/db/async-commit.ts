import { sql } from 'kysely';

/**
 * A FROM item that makes the statement's own transaction commit without waiting for its WAL
 * flush (`synchronous_commit = off` until the transaction ends). For rows whose loss in the last
 * second before a machine crash is acceptable (search audit rows, session touches; README,
 * "Durability"); the caller tells AsyncCommits (wal-flusher.ts) so the embedded engine flushes them.
 */
export const ASYNC_COMMIT = sql`(select set_config('synchronous_commit', 'off', true)) as async_commit`;
