import { randomUUID } from 'node:crypto';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import type { Keyring } from '../../crypto/keyring.js';
import type { Database } from '../../db/schema.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import { IDENTIFIER_LABELS } from '../../identifiers/labels.js';
import type { IdentifierLabel } from '../../identifiers/normalize.js';
import type { SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { createLoopShare } from '../../jobs/loop-share.js';
import { createPace } from '../../jobs/pace.js';
import { type BatchKey, matchingPositions } from '../search/batch.repository.js';
import { type SearchResult, searchReportsMany } from '../search/search.repository.js';
import { inShapeGroups } from '../search/search-coalescer.js';
import { type ChunkRow, chunkContext, rowContext } from './screening-file.js';
import {
  abandonedUploads,
  claimJob,
  commitChunk,
  failJob,
  findChunk,
  type JobRow,
  releaseJob,
  type ScreenedMatch,
} from './screenings.repository.js';

/** A worker holds a job this long after each chunk; one killed mid-chunk frees it for another after this. */
export const LEASE_MS = 15_000;
/** An upload not heard from for this long is taken as abandoned (its process died mid-file). */
const ABANDONED_MS = 15 * 60_000;
/** How long a worker stays on one job before letting the others take their turn. */
const TURN_MS = 2_000;
const LABELS = new Set<string>(IDENTIFIER_LABELS);
/**
 * Milliseconds of normalising and indexing between two turns of the event loop. A row costs 3–12
 * µs (a phone the most): a turn every 100 rows, as before, was one every half millisecond, and
 * each turn waits for whatever the searches beside have ready, so a chunk of 2,000 rows spent
 * 59–77 ms in its 20 turns for 10 ms of its own work.
 */
const WORK_BETWEEN_TURNS_MS = 2;
/**
 * After each chunk the worker rests a fifth of the time the chunk took, so a job keeps its
 * connection and its share of this process busy at most five sixths of the time: on the 2-core
 * bench machine single searches beside a 1,000,000-row job had p99 22.7–23.8 ms instead of
 * 25.7–29.8 ms (1.51–2.01× their p99 alone, against 2.03–2.13×), and the job took 92–96 s instead
 * of 79–84 s. A third made it 1.67× and 116 s, too close to the two minutes the job may take.
 */
const REST_PER_BUSY = 1 / 5;

/** The search summary's figures a match keeps (the row's line and sealed value are the worker's). */
type Summary = Omit<ScreenedMatch, 'line' | 'rowToken'>;

/**
 * Screens jobs a chunk per transaction. Every instance runs one (src/modules/screenings/
 * screenings.plugin.ts) and the CLI runs one for its own job; a lease on the job row makes each
 * chunk screened once, and a chunk's commit carries the job's progress, so a job killed anywhere
 * resumes at its next chunk. One worker uses one database connection at a time: that is the share
 * of the database a screening takes from each instance (README, "Screening a customer book").
 */
export function createScreeningWorker(deps: {
  db: Kysely<Database>;
  keyring: Pick<Keyring, 'seal' | 'open'>;
  identifiers: Pick<SealedIdentifiers, 'searchKey'>;
  asyncCommits: Pick<AsyncCommits, 'note'>;
  riskHalfLifeDays: number;
  /**
   * Beyond the fixed rest, a worker that serves requests waits after each chunk until its process's
   * event loop has been at most this busy since its previous wait began (SERVING_LOOP_SHARE,
   * src/jobs/loop-share.ts, decision 0098); 1, never waiting, where nothing else is served (the CLI).
   */
  loopShare: number;
  /**
   * The most rows a second a job is screened at (REDFLAG_SCREENING_ROWS_PER_SECOND, decision 0100;
   * 0 for no cap): the share rules above slow a job as the load grows, this one bounds it on a
   * machine fast enough to go further.
   */
  rowsPerSecond: number;
}) {
  const { db, keyring, identifiers } = deps;

  async function screenChunk(job: JobRow, seq: number, owner: string): Promise<number> {
    const chunk = await findChunk(db, job.id, seq);
    if (!chunk) throw new Error(`screening job ${job.id} has no chunk ${seq}`);
    const rows = JSON.parse(keyring.open(chunk.body_token, chunkContext(job.company_id, job.id, seq))) as ChunkRow[];
    const keys: BatchKey[] = [];
    const rejected: Array<{ line: number; message: string }> = [];
    let turnAt = performance.now() + WORK_BETWEEN_TURNS_MS;
    for (let n = 0; n < rows.length; n++) {
      // Normalising and indexing is synchronous work: the event loop gets a turn every so often,
      // so searches served by this process do not wait behind a whole chunk.
      if (performance.now() >= turnAt) {
        await setImmediate();
        turnAt = performance.now() + WORK_BETWEEN_TURNS_MS;
      }
      const [line, label, value] = rows[n] as ChunkRow;
      const found = LABELS.has(label)
        ? identifiers.searchKey(label as IdentifierLabel, value)
        : { ok: false as const, message: `unknown identifier type; one of ${IDENTIFIER_LABELS.join(', ')}` };
      if (found.ok) keys.push({ n, key: found.key });
      // Stored, so nothing of the value goes with it (a message may quote part of it, e.g. a bank slug).
      else rejected.push({ line, message: found.message.replace(/"[^"]*"/g, '(as written)') });
    }
    const committed = await db.transaction().execute(async (trx) => {
      // Like a search, a chunk commits without waiting for its WAL flush: redone whole if it is lost.
      await sql`select set_config('synchronous_commit', 'off', true)`.execute(trx);
      const hits = await matchingPositions(trx, keys);
      const counts = new Map<number, number>();
      const matches: ScreenedMatch[] = [];
      // The matching rows' searches, up to 16 in a statement (search-coalescer.ts).
      for (const group of inShapeGroups(
        keys.filter(({ n }) => hits.has(n)),
        (hit) => hit.key,
      )) {
        // The summary alone: a match keeps its figures, not the reports' lists.
        const found = await searchReportsMany(
          trx,
          group.map((hit) => hit.key),
          deps.riskHalfLifeDays,
          'summary',
        );
        group.forEach(({ n }, at) => {
          const { summary } = JSON.parse((found[at] as SearchResult).body) as { summary: Summary };
          const total = summary.totalReports + summary.totalPublicReports;
          counts.set(n, total);
          if (total === 0) return; // a draft or an exited report: nothing anyone can see
          const [line, label, value, ref] = rows[n] as ChunkRow;
          matches.push({
            line,
            rowToken: keyring.seal(JSON.stringify([label, value, ref]), rowContext(job.company_id, job.id)),
            ...summary,
          });
        });
      }
      const audited = keys.map(({ n, key }) => ({
        label: key.label,
        digest: (key.indexes[0] as Buffer).toString('hex'),
        count: counts.get(n) ?? 0,
      }));
      return commitChunk(trx, { job, seq, audited, matches, rejected, leaseMs: LEASE_MS, owner });
    });
    deps.asyncCommits.note();
    return committed ? rows.length : -1;
  }

  /** Uploads that stopped without a word (the uploading process died) fail after a quarter of an hour. */
  async function failAbandoned(): Promise<void> {
    for (const id of await abandonedUploads(db, ABANDONED_MS)) {
      await failJob(db, id, 'The upload stopped before the end of the file; start a new screening with the whole file');
    }
  }

  return {
    /**
     * One turn: claims the job that waited longest and screens its chunks for about two seconds
     * (or `onlyJobId`'s, for the CLI; at most `maxChunks`). Returns the rows screened; 0 when
     * nothing was waiting.
     */
    async runDue(onlyJobId?: string, maxChunks = Number.POSITIVE_INFINITY): Promise<number> {
      // A fresh owner per claim: the poller and the scheduled job of one process never share a lease.
      const owner = `screening-worker:${randomUUID()}`;
      await failAbandoned();
      const job = await claimJob(db, owner, LEASE_MS, onlyJobId);
      if (!job) return 0;
      const started = Date.now();
      const share = createLoopShare(deps.loopShare);
      const pace = createPace(deps.rowsPerSecond);
      let screened = 0;
      try {
        const last = Math.min(job.chunks, job.next_chunk + maxChunks);
        for (let seq = job.next_chunk; seq < last && Date.now() - started < TURN_MS; seq++) {
          let n: number;
          const chunkStarted = performance.now();
          try {
            n = await screenChunk(job, seq, owner);
          } catch (err) {
            // The database away is a retry later; anything else would fail the same way for ever.
            if (isDatabaseUnavailable(err)) throw err;
            await failJob(db, job.id, 'A part of the file could not be screened; start a new screening');
            throw err;
          }
          if (n < 0) return screened; // the lease was lost to another worker
          screened += n;
          // No rest after the turn's last chunk: the job is released at once.
          if (seq + 1 < last && Date.now() - started < TURN_MS) {
            await sleep((performance.now() - chunkStarted) * REST_PER_BUSY);
            await share.rest();
          }
          // The pace is kept after the last chunk too (at most a chunk's 170 ms at the default):
          // the next turn, here or in another process, starts a schedule of its own.
          await pace.after(n);
        }
      } finally {
        await releaseJob(db, job.id, owner);
      }
      return screened;
    },
  };
}

export type ScreeningWorker = ReturnType<typeof createScreeningWorker>;
