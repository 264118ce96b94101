import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, ScreeningJobsTable } from '../../db/schema.js';
import { SYSTEM_KEY_ID } from '../../jobs/system-actor.js';
import { lockCompany } from '../companies/companies.repository.js';
import { isUuid } from '../ids.js';

export type JobRow = Selectable<ScreeningJobsTable>;
type Db = Kysely<Database> | Transaction<Database>;

/** Who a job's audit rows name: the key or the user that started it (the system key for the CLI). */
export interface JobActor {
  companyId: string;
  keyId: string | null;
  userId: string | null;
}

/**
 * A new job, unless the company has one queued or running (then undefined: checked under the
 * company's row lock), and the audit row that says a screening started (`screening_start`, naming
 * the job): with the row per customer left out of the trail's view, this one still shows that one
 * ran. It names the actor and request id as the rows per customer do.
 */
export async function insertJob(db: Kysely<Database>, actor: JobActor): Promise<JobRow | undefined> {
  return db.transaction().execute(async (trx) => {
    // Two uploads at once: the second waits here, then sees the first's job.
    await lockCompany(trx, actor.companyId);
    if (await hasUnfinishedJob(trx, actor.companyId)) return undefined;
    const job = await trx
      .insertInto('screening_jobs')
      .values({ id: randomUUID(), company_id: actor.companyId, key_id: actor.keyId, user_id: actor.userId, status: 'queued' })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('audit_events')
      .values({
        company_id: job.company_id,
        key_id: job.key_id ?? (job.user_id ? null : SYSTEM_KEY_ID),
        user_id: job.user_id,
        action: 'screening_start',
        subject_id: job.id,
        request_id: `screening:${job.id}`,
      })
      .execute();
    return job;
  });
}

/** The company's own job; another company's is exactly not found. */
export async function findJob(db: Db, companyId: string, id: string): Promise<JobRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('screening_jobs')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

/** The company's newest jobs. */
export function listJobs(db: Db, companyId: string, limit: number): Promise<JobRow[]> {
  return db
    .selectFrom('screening_jobs')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** One chunk of the uploaded file and the job's counts, together. */
export async function insertChunk(
  db: Kysely<Database>,
  chunk: { jobId: string; seq: number; rows: number; token: string },
  rejected: Array<{ line: number; message: string }>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (chunk.rows > 0) {
      await trx
        .insertInto('screening_chunks')
        .values({ job_id: chunk.jobId, seq: chunk.seq, rows: chunk.rows, body_token: chunk.token })
        .execute();
    }
    if (rejected.length > 0) await insertErrors(trx, chunk.jobId, rejected);
    await trx
      .updateTable('screening_jobs')
      .set({
        chunks: sql`chunks + ${chunk.rows > 0 ? 1 : 0}`,
        rows_read: sql`rows_read + ${chunk.rows + rejected.length}`,
        // A line that is not a row at all is done with once it is rejected: counted as screened.
        rows_screened: sql`rows_screened + ${rejected.length}`,
        errors: sql`errors + ${rejected.length}`,
        updated_at: sql`now()`,
      })
      .where('id', '=', chunk.jobId)
      .execute();
  });
}

export async function insertErrors(db: Db, jobId: string, rows: Array<{ line: number; message: string }>): Promise<void> {
  await db
    .insertInto('screening_errors')
    .values(rows.map((r) => ({ job_id: jobId, line: r.line, message: r.message })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** A job is done once its file is whole and every chunk is screened; whichever comes last says so. */
export async function completeIfScreened(db: Db, jobId: string): Promise<void> {
  await db
    .updateTable('screening_jobs')
    .set({ status: 'done', finished_at: sql`now()`, lease_owner: null, lease_until: null, updated_at: sql`now()` })
    .where('id', '=', jobId)
    .where('file_complete', '=', true)
    .where(sql<boolean>`next_chunk = chunks`)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

export async function markFileComplete(db: Kysely<Database>, jobId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('screening_jobs')
      .set({ file_complete: true, updated_at: sql`now()` })
      .where('id', '=', jobId)
      .execute();
    await completeIfScreened(trx, jobId);
  });
}

/**
 * A job that cannot finish (its upload broke off, a chunk cannot be screened): it fails, and its
 * chunks and any partial results go. The audit rows of what was screened stay (those searches happened).
 */
export async function failJob(db: Kysely<Database>, jobId: string, failure: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const table of ['screening_chunks', 'screening_matches', 'screening_errors'] as const) {
      await trx.deleteFrom(table).where('job_id', '=', jobId).execute();
    }
    await trx
      .updateTable('screening_jobs')
      .set({ status: 'failed', failure, finished_at: sql`now()`, lease_owner: null, lease_until: null, updated_at: sql`now()` })
      .where('id', '=', jobId)
      .execute();
  });
}

/**
 * Takes the job with a chunk to screen that has waited longest (jobs take turns, so one company's
 * big file does not hold back another's), unless another worker's lease on it is still running.
 * SKIP LOCKED: two workers asking at once get different jobs.
 */
export async function claimJob(
  db: Kysely<Database>,
  owner: string,
  leaseMs: number,
  onlyJobId?: string,
): Promise<JobRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const candidate = await trx
      .selectFrom('screening_jobs')
      .select('id')
      .where('status', 'in', ['queued', 'running'])
      .where(sql<boolean>`next_chunk < chunks`)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
      .$if(onlyJobId !== undefined, (q) => q.where('id', '=', onlyJobId as string))
      .orderBy('updated_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!candidate) return undefined;
    return trx
      .updateTable('screening_jobs')
      .set({
        status: 'running',
        lease_owner: owner,
        // To the back of the queue: jobs take turns, and one that keeps failing does not hold the front.
        updated_at: sql`now()`,
        lease_until: sql`clock_timestamp() + ${`${leaseMs} milliseconds`}::interval`,
        started_at: sql`coalesce(started_at, now())`,
      })
      .where('id', '=', candidate.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * Frees every job's lease. Only for a process that knows no other worker can be alive: on the
 * embedded engine the data directory's lock makes it the only one, so a lease left by a process
 * killed with -9 would otherwise hold its job until it lapses.
 */
export async function releaseAllLeases(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable('screening_jobs')
    .set({ lease_owner: null, lease_until: null })
    .where('lease_owner', 'is not', null)
    .execute();
}

/** Jobs whose upload stopped without a word (the uploading process died): not touched for `staleMs`. */
export async function abandonedUploads(db: Kysely<Database>, staleMs: number): Promise<string[]> {
  const rows = await db
    .selectFrom('screening_jobs')
    .select('id')
    .where('status', 'in', ['queued', 'running'])
    .where('file_complete', '=', false)
    .where('updated_at', '<', sql<Date>`now() - ${`${staleMs} milliseconds`}::interval`)
    .limit(100)
    .execute();
  return rows.map((r) => r.id);
}

/** Whether the company has a job still going (one at a time per company). */
export async function hasUnfinishedJob(db: Db, companyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('screening_jobs')
    .select('id')
    .where('company_id', '=', companyId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return row !== undefined;
}

export async function releaseJob(db: Kysely<Database>, jobId: string, owner: string): Promise<void> {
  await db
    .updateTable('screening_jobs')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', jobId)
    .where('lease_owner', '=', owner)
    .execute();
}

export async function findChunk(db: Db, jobId: string, seq: number) {
  return db.selectFrom('screening_chunks').selectAll().where('job_id', '=', jobId).where('seq', '=', seq).executeTakeFirst();
}

export interface ScreenedMatch {
  line: number;
  rowToken: string;
  totalReports: number;
  totalPublicReports: number;
  distinctCompanies: number;
  openDisputes: number;
  riskLevel: string;
  firstReportedAt: string | null;
  lastReportedAt: string | null;
}

export interface ScreenedChunk {
  job: JobRow;
  seq: number;
  /** Every row screened: what its audit row names (its kind, its index, how many reports it matched). */
  audited: Array<{ label: string; digest: string; count: number }>;
  matches: ScreenedMatch[];
  rejected: Array<{ line: number; message: string }>;
  leaseMs: number;
  owner: string;
}

/**
 * A screened chunk, all at once: its audit rows in one insert, its matches and rejected rows,
 * the job's counts and next chunk, the chunk itself deleted. Only while this worker still holds
 * the lease: a worker that stalled past it and lost the job to another commits nothing.
 */
export async function commitChunk(trx: Transaction<Database>, done: ScreenedChunk): Promise<boolean> {
  const { job } = done;
  const moved = await trx
    .updateTable('screening_jobs')
    .set({
      next_chunk: done.seq + 1,
      rows_screened: sql`rows_screened + ${done.audited.length + done.rejected.length}`,
      matches: sql`matches + ${done.matches.length}`,
      errors: sql`errors + ${done.rejected.length}`,
      // From the clock, not the transaction's start: a long chunk still leaves the whole lease.
      lease_until: sql`clock_timestamp() + ${`${done.leaseMs} milliseconds`}::interval`,
      updated_at: sql`now()`,
    })
    .where('id', '=', job.id)
    .where('next_chunk', '=', done.seq)
    .where('lease_owner', '=', done.owner)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) return false;
  if (done.audited.length > 0) {
    // A job started from the CLI has no key or user of its own: the system key stands in.
    const actor = job.key_id ?? (job.user_id ? null : SYSTEM_KEY_ID);
    await sql`
      insert into audit_events (company_id, key_id, user_id, action, label, blind_index, result_count, request_id)
      select ${job.company_id}::uuid, ${actor}::uuid, ${job.user_id}::uuid, 'screen', a.label, decode(a.digest, 'hex'), a.count,
             ${`screening:${job.id}`}
      from json_to_recordset(${JSON.stringify(done.audited)}::json) as a(label text, digest text, count int)`.execute(trx);
  }
  if (done.matches.length > 0) {
    await trx
      .insertInto('screening_matches')
      .values(
        done.matches.map((m) => ({
          job_id: job.id,
          line: m.line,
          row_token: m.rowToken,
          total_reports: m.totalReports,
          total_public_reports: m.totalPublicReports,
          distinct_companies: m.distinctCompanies,
          open_disputes: m.openDisputes,
          risk_level: m.riskLevel,
          first_reported_at: m.firstReportedAt ? new Date(m.firstReportedAt) : null,
          last_reported_at: m.lastReportedAt ? new Date(m.lastReportedAt) : null,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  if (done.rejected.length > 0) await insertErrors(trx, job.id, done.rejected);
  await trx.deleteFrom('screening_chunks').where('job_id', '=', job.id).where('seq', '=', done.seq).execute();
  await completeIfScreened(trx, job.id);
  return true;
}

/** A page of a job's matched rows or rejected rows, in line order, after `afterLine`. */
export function matchesAfter(db: Db, jobId: string, afterLine: number, limit: number) {
  return db
    .selectFrom('screening_matches')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('line', '>', afterLine)
    .orderBy('line')
    .limit(limit)
    .execute();
}

export function errorsAfter(db: Db, jobId: string, afterLine: number, limit: number) {
  return db
    .selectFrom('screening_errors')
    .select(['line', 'message'])
    .where('job_id', '=', jobId)
    .where('line', '>', afterLine)
    .orderBy('line')
    .limit(limit)
    .execute();
}
