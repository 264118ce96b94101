import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Keyring } from '../../crypto/keyring.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { createLoopShare } from '../../jobs/loop-share.js';
import { createPace } from '../../jobs/pace.js';
import { BrokenFileError, chunkContext, csvField, readChunks, rowContext } from './screening-file.js';
import {
  errorsAfter,
  failJob,
  findJob,
  insertChunk,
  insertJob,
  type JobActor,
  type JobRow,
  listJobs,
  markFileComplete,
  matchesAfter,
} from './screenings.repository.js';

export interface JobView {
  id: string;
  status: JobRow['status'];
  /** Rows of the file read (and stored) so far; the header is not a row. */
  rowsRead: number;
  rowsScreened: number;
  matches: number;
  errors: number;
  /** True once the whole file is in: until then more rows may come. */
  fileComplete: boolean;
  rowsPerSecond: number | null;
  estimatedFinishAt: string | null;
  failure: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

function toView(row: JobRow, now = Date.now()): JobView {
  const started = row.started_at ? new Date(row.started_at).getTime() : null;
  const until = row.finished_at ? new Date(row.finished_at).getTime() : now;
  const rate = started && until > started ? row.rows_screened / ((until - started) / 1000) : null;
  const left = row.rows_read - row.rows_screened;
  return {
    id: row.id,
    status: row.status,
    rowsRead: row.rows_read,
    rowsScreened: row.rows_screened,
    matches: row.matches,
    errors: row.errors,
    fileComplete: row.file_complete,
    rowsPerSecond: rate === null ? null : Math.round(rate),
    // Known once the file is whole and rows are going through; a guess from the pace so far.
    estimatedFinishAt:
      row.status === 'done'
        ? iso(row.finished_at)
        : row.file_complete && rate && rate > 0
          ? new Date(now + (left / rate) * 1000).toISOString()
          : null,
    failure: row.failure,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

export const MATCHES_HEADER = [
  'line',
  'label',
  'value',
  'ref',
  'total_reports',
  'total_public_reports',
  'distinct_companies',
  'open_disputes',
  'risk_level',
  'first_reported_at',
  'last_reported_at',
];
const PAGE = 1000;
/**
 * The longest an upload waits between two chunks for its process's requests: the whole file must
 * be in within the request's time limit (10 minutes), so even a process kept busy by requests
 * stores a 10,000,000-row file's 5,000 chunks with at most about 4 minutes of waits.
 */
const UPLOAD_MAX_REST_MS = 50;
/**
 * The most rows a second an upload is stored at, for a job's pace (decision 0100; 0, no pace, for
 * none): three times the job's, so the upload's pace does not hold the worker back, and never
 * under 40,000, so a 10,000,000-row file needs at least 250 s of the request's 10 minutes, not
 * more than the waits above allow (a wait for the share counts towards the schedule). On a fast
 * machine the file came in at 110,000 rows a second, and the searches beside it were at their
 * slowest while it did.
 */
export function uploadRowsPerSecond(jobRowsPerSecond: number): number {
  return jobRowsPerSecond > 0 ? Math.max(40_000, 3 * jobRowsPerSecond) : 0;
}

/**
 * Screening a whole customer file: the upload is stored sealed in chunks as it arrives (never held
 * whole), the screening worker (screening.worker.ts) screens them, and the results are read back as
 * CSV files. Another company's job is exactly the 404 of a random id.
 */
export function createScreeningsService(deps: {
  db: Kysely<Database>;
  keyring: Pick<Keyring, 'seal' | 'open'>;
  /**
   * The share of the event loop an upload keeps busy, the requests its process serves counted
   * (SERVING_LOOP_SHARE, decision 0099): parsing a file holds the loop a socket's piece (up to 64
   * KB) at a time, and the searches served beside it wait; 1, never waiting, where nothing else is
   * served (the CLI).
   */
  loopShare: number;
  /** The job's pace (REDFLAG_SCREENING_ROWS_PER_SECOND; 0 for none): the upload's follows it (uploadRowsPerSecond). */
  rowsPerSecond: number;
}) {
  const { db, keyring } = deps;

  async function own(companyId: string, id: string): Promise<JobRow> {
    const row = await findJob(db, companyId, id);
    if (!row) throw AppError.notFound('Screening job not found');
    return row;
  }

  return {
    /**
     * A new job, queued until its first chunk is stored. One job at a time per company: a file of
     * ten million rows is ten million searches, and the rate limit counts requests, not rows.
     */
    async create(actor: JobActor): Promise<JobView> {
      const job = await insertJob(db, actor);
      if (!job) {
        throw new AppError(
          'INVALID_STATE',
          'A screening of your company is still running; send this file once it is done (the list of screenings shows its progress)',
        );
      }
      return toView(job);
    },

    /**
     * Stores the file as sealed chunks (each with the job's counts, so a reader sees rows arrive
     * and the worker can start on the first chunk while the rest uploads). A broken upload fails
     * the job and is a 400 naming `file`.
     */
    async receive(job: JobView, companyId: string, file: Readable, noOtherFile?: () => Promise<void>): Promise<JobView> {
      let seq = 0;
      const share = createLoopShare(deps.loopShare, UPLOAD_MAX_REST_MS);
      const pace = createPace(uploadRowsPerSecond(deps.rowsPerSecond));
      try {
        for await (const chunk of readChunks(file)) {
          const token = chunk.rows.length ? keyring.seal(JSON.stringify(chunk.rows), chunkContext(companyId, job.id, seq)) : '';
          await insertChunk(db, { jobId: job.id, seq, rows: chunk.rows.length, token }, chunk.rejected);
          if (chunk.rows.length) seq++;
          // The file waits in the socket meanwhile (the stream is not read): the searches go first.
          await share.rest();
          await pace.after(chunk.rows.length + chunk.rejected.length);
        }
        // An upload of two files is refused whole: the second would otherwise go unscreened without a word.
        await noOtherFile?.().catch((err: unknown) => {
          throw err instanceof AppError
            ? new BrokenFileError(
                'Send one file, in the field "file", and nothing after it; start a new screening with that file alone',
              )
            : err;
        });
      } catch (err) {
        // Whatever stopped the upload, the job ends with it: half a file is never screened as a whole one.
        // A broken file's message says what to do about it.
        const message =
          err instanceof BrokenFileError
            ? err.message
            : 'The file could not be stored; start a new screening with the whole file';
        await failJob(db, job.id, message).catch(() => undefined);
        if (!(err instanceof BrokenFileError)) throw err;
        throw AppError.validation([{ field: 'file', message }]);
      }
      await markFileComplete(db, job.id);
      return toView(await own(companyId, job.id));
    },

    get: async (companyId: string, id: string) => toView(await own(companyId, id)),

    /** The company's twenty newest jobs, newest first. */
    list: async (companyId: string) => (await listJobs(db, companyId, 20)).map((row) => toView(row)),

    /** The matched rows as CSV lines (header first), a page at a time: the value opened for its own company only. */
    async *matchesCsv(companyId: string, id: string): AsyncGenerator<string> {
      const job = await own(companyId, id);
      yield `${MATCHES_HEADER.join(',')}\n`;
      for (let after = -1; ; ) {
        const page = await matchesAfter(db, job.id, after, PAGE);
        let text = '';
        for (const m of page) {
          const [label, value, ref] = JSON.parse(keyring.open(m.row_token, rowContext(job.company_id, job.id))) as string[];
          text += `${[
            m.line,
            label ?? '',
            value ?? '',
            ref ?? '',
            m.total_reports,
            m.total_public_reports,
            m.distinct_companies,
            m.open_disputes,
            m.risk_level,
            iso(m.first_reported_at),
            iso(m.last_reported_at),
          ]
            .map((v) => csvField(v))
            .join(',')}\n`;
          after = m.line;
        }
        if (text) yield text;
        if (page.length < PAGE) return;
      }
    },

    /** The rejected rows as CSV lines: the line and why, never the value. */
    async *errorsCsv(companyId: string, id: string): AsyncGenerator<string> {
      const job = await own(companyId, id);
      yield 'line,message\n';
      // From -1: a line csv-parse could not number is stored as 0.
      for (let after = -1; ; ) {
        const page = await errorsAfter(db, job.id, after, PAGE);
        if (page.length) yield page.map((e) => `${e.line},${csvField(e.message)}\n`).join('');
        after = page.at(-1)?.line ?? after;
        if (page.length < PAGE) return;
      }
    },
  };
}

export type ScreeningsService = ReturnType<typeof createScreeningsService>;
