import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import { insertSearchAudits, type SearchAuditRow } from './search-audit.repository.js';

/** Rows per statement at most: a 1,000-item batch's hits fit in one or two. */
const MAX_ROWS = 500;

export interface SearchAuditWriter {
  /** Resolves once the row is written (committed asynchronously); a search answers only after. */
  write(row: SearchAuditRow): Promise<void>;
}

interface Pending {
  row: SearchAuditRow;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the audit rows of a batch's items (a single search's row is written by the
 * statement that answers it, decision 0097). Every search used to insert its own row in its own
 * statement: a write transaction per search, and under 50 concurrent searches their backends
 * queued on the same last heap and index pages of audit_events (wait events
 * `LWLock:BufferContent`, `WALInsert`). Here the rows of the items that finish while one insert
 * runs go in the next one, one insert at a time per process, and each item still answers only
 * after its row is in (decision 0092).
 */
export function createSearchAuditWriter(db: Kysely<Database>, asyncCommits: Pick<AsyncCommits, 'note'>): SearchAuditWriter {
  const queue: Pending[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    while (queue.length) {
      const group = queue.splice(0, MAX_ROWS);
      try {
        await insertSearchAudits(
          db,
          group.map((p) => p.row),
        );
        asyncCommits.note();
        for (const p of group) p.resolve();
      } catch (error) {
        // Each search waiting on this group fails as its own statement would have (a 503 when the database is away).
        for (const p of group) p.reject(error);
      }
    }
    writing = false;
  }

  return {
    write(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        if (writing) return;
        writing = true;
        // A turn of the event loop first, so searches answered by PostgreSQL in the same turn join in.
        setImmediate(() => void drain());
      });
    },
  };
}
