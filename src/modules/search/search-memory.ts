import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The tables and indexes every search reads (the statement of search.repository.ts): its company
 * reports, their identifiers, and the indexes it finds them through. A page of them that is not in
 * PostgreSQL's buffer cache is read through the operating system, a system call and a copy even
 * when that page is cached there: on the bench machine a 10,000,000-identifier registry with the
 * default 128 MB cost searches 13–38% more PostgreSQL CPU than one of 1,000,000, and ran within 3%
 * of it with the cache sized for these relations (bench/README.md). Public reports are left out:
 * they are a small fraction of the registry.
 */
export const SEARCHED_RELATIONS = [
  'reports',
  'reports_pkey',
  'report_identifiers',
  'report_identifiers_lookup_idx',
  'report_identifiers_nuban_idx',
  'report_identifiers_report_idx',
] as const;

export interface SearchMemory {
  /** PostgreSQL's `shared_buffers`, in bytes. */
  sharedBuffersBytes: number;
  /** What SEARCHED_RELATIONS take on disk now, in bytes. */
  searchedBytes: number;
}

/** Reads both figures from the database the service uses (its schema, through the search path). */
export async function measureSearchMemory(db: Kysely<Database>): Promise<SearchMemory> {
  const { rows } = await sql<{ shared: string; searched: string }>`
    select pg_size_bytes(current_setting('shared_buffers'))::text as shared,
      coalesce(sum(pg_relation_size(to_regclass(name))), 0)::text as searched
    from unnest(${[...SEARCHED_RELATIONS]}::text[]) as name`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('the search memory query returned no row');
  return { sharedBuffersBytes: Number(row.shared), searchedBytes: Number(row.searched) };
}

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en-GB')} MB`;

/**
 * One line for the operator when the buffer cache cannot hold what searches read, or undefined.
 * Said once at start-up, by the process that migrates: the registry grows slowly, and a restart
 * after resizing the server is when the operator looks.
 */
export function searchMemoryAdvice(memory: SearchMemory): string | undefined {
  if (memory.searchedBytes <= memory.sharedBuffersBytes) return undefined;
  return (
    `PostgreSQL's shared_buffers (${megabytes(memory.sharedBuffersBytes)}) is smaller than the tables and ` +
    `indexes a search reads (${megabytes(memory.searchedBytes)}): searches will read pages through the ` +
    'operating system and cost more. Give shared_buffers room for them (README, "Server memory").'
  );
}
