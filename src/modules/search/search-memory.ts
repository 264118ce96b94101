import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The tables and indexes searches read (the statement of search.repository.ts): company reports,
 * their identifiers and the indexes a search finds them through (the lookup index, or the NUBAN
 * index for a bare account number), and each listed report's card with its key (decision 0102;
 * before the cards a search read each listed report's identifiers through their report index). A page of them that is not in PostgreSQL's buffer cache is
 * read through the operating system, a system call and a copy even when that page is cached
 * there, so a registry that outgrows the cache makes every search dearer (README, "Server
 * memory"). Public reports, companies and disputes are left out: a small part of the registry.
 */
export const SEARCHED_RELATIONS = [
  'reports',
  'reports_pkey',
  'report_identifiers',
  'report_identifiers_lookup_idx',
  'report_identifiers_nuban_idx',
  'report_cards',
  'report_cards_pkey',
] as const;

export interface SearchMemory {
  /** PostgreSQL's `shared_buffers`, in bytes. */
  sharedBuffersBytes: number;
  /** What SEARCHED_RELATIONS take on disk (main fork), in bytes, as of their last vacuum or analyze. */
  searchedBytes: number;
  /** Names of SEARCHED_RELATIONS the schema does not have (a renamed index would drop out of the sum). */
  missing: string[];
}

/**
 * Reads both figures from the database the service uses (its schema, through the search path).
 * Sizes come from `pg_class.relpages`, kept by vacuum, analyze and index builds, rather than from
 * `pg_relation_size`, which takes a lock on each relation: start-up must not wait behind an
 * operator's `VACUUM FULL` or `REINDEX` for a line of advice.
 */
export async function measureSearchMemory(db: Kysely<Database>): Promise<SearchMemory> {
  const { rows } = await sql<{ name: string; shared: string; bytes: string | null }>`
    select r.name, pg_size_bytes(current_setting('shared_buffers'))::text as shared,
      (c.relpages::bigint * current_setting('block_size')::bigint)::text as bytes
    from unnest(${[...SEARCHED_RELATIONS]}::text[]) as r(name)
      left join pg_class c on c.oid = to_regclass(r.name)`.execute(db);
  const first = rows[0];
  if (!first) throw new Error('the search memory query returned no row');
  return {
    sharedBuffersBytes: Number(first.shared),
    searchedBytes: rows.reduce((sum, row) => sum + Number(row.bytes ?? 0), 0),
    missing: rows.filter((row) => row.bytes === null).map((row) => row.name),
  };
}

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en')} MB`;

/**
 * One line for the operator when the buffer cache is smaller than what searches read, or
 * undefined. Said once at start-up, by the process that migrates: the registry grows slowly, and
 * a restart after resizing the server is when the operator looks. A warning, not a fault: the
 * answers are the same, and a registry a few times the cache still searches at full speed on the
 * bench machine (1,000,000 identifiers, 669 MB, in the default 128 MB); ten times that did not.
 */
export function searchMemoryAdvice(memory: Pick<SearchMemory, 'sharedBuffersBytes' | 'searchedBytes'>): string | undefined {
  if (memory.searchedBytes <= memory.sharedBuffersBytes) return undefined;
  return (
    `PostgreSQL's shared_buffers (${megabytes(memory.sharedBuffersBytes)}) holds less than the tables and ` +
    `indexes searches read (${megabytes(memory.searchedBytes)}): pages outside it are read through the ` +
    'operating system, which makes searches dearer as the registry grows. Give shared_buffers room for ' +
    'them (README, "Server memory").'
  );
}

/** The advice, or undefined when there is none or the figures could not be read (it must never stop a start). */
export async function searchMemoryAdviceOf(db: Kysely<Database>): Promise<string | undefined> {
  try {
    return searchMemoryAdvice(await measureSearchMemory(db));
  } catch {
    return undefined;
  }
}
