import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from './clock.js';
import { createFailureRun, type FailureRunLog } from './failure-run.js';
import { claimRun, ensureJobRows, finishRun, listJobRuns, renewRun } from './job-runs.repository.js';

/** A background job: named, run at most once per `everySeconds` across every instance, safe to run twice. */
export interface Job {
  name: string;
  description: string;
  everySeconds: number;
  /** Does the work as of `now` (the scheduler's clock); returns how many items it handled. */
  run(now: Date): Promise<number>;
}

export interface JobOutcome {
  name: string;
  /** False when another instance holds the job, or (for a tick) it is not due. */
  ran: boolean;
  items?: number;
  error?: string;
}

export interface JobStatus {
  name: string;
  description: string;
  everySeconds: number;
  lastStartedAt: string | null;
  lastFinishedAt: string | null;
  lastStatus: string | null;
  lastError: string | null;
  lastItems: number | null;
  runs: number;
  failures: number;
  running: boolean;
}

/** How long a claimed run holds its job: a process that dies mid-run frees it after this. */
const DEFAULT_LEASE_MS = 15 * 60 * 1000;
/** Leases a run may hold in all (16 of 15 minutes: 4 hours) before it is taken for hung. */
const MAX_RUN_LEASES = 16;

/**
 * The one scheduler: every instance runs it, and a row per job in `job_runs` makes each run
 * happen once across them (claimed by a conditional UPDATE, which works the same on PGlite and a
 * server). Time comes from `clock`, so tests move it rather than wait.
 */
export function createScheduler(deps: {
  db: Kysely<Database>;
  clock: Clock;
  jobs: readonly Job[];
  log: FailureRunLog;
  onOutcome?: (outcome: JobOutcome) => void;
  /** How long a claim holds without renewal (15 minutes; tests shorten it). */
  leaseMs?: number;
}) {
  const { db, clock, jobs, log } = deps;
  const LEASE_MS = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const instance = randomUUID();
  const names = new Set<string>();
  for (const job of jobs) {
    if (names.has(job.name)) throw new Error(`two jobs are named ${job.name}`);
    names.add(job.name);
  }
  let rowsReady: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<unknown> = Promise.resolve();

  /** Each job's row, made once: `jobs status` lists every job from the start, run or not. */
  function ensureRows(): Promise<void> {
    rowsReady ??= ensureJobRows(db, [...names]);
    return rowsReady;
  }

  async function runOne(job: Job, force: boolean): Promise<JobOutcome> {
    await ensureRows();
    const startedAt = clock.now();
    const claimed = await claimRun(db, {
      name: job.name,
      instance,
      now: startedAt,
      everyMs: job.everySeconds * 1000,
      leaseMs: LEASE_MS,
      force,
    });
    if (!claimed) return { name: job.name, ran: false };
    // A run longer than its lease (a first retention pass over years of rows) keeps its claim while
    // it works: otherwise another instance would start the same job beside it, and this run's
    // outcome would be lost when it finished. Only a dead process lets the lease lapse.
    // A run still going after MAX_RUN_LEASES leases is taken for hung (a promise that never settles):
    // its lease is left to lapse, so the job is not blocked on every instance until a restart.
    let renewals = 0;
    const renewal = setInterval(() => {
      if (++renewals > MAX_RUN_LEASES * 3) {
        clearInterval(renewal);
        log.warn({ job: job.name }, 'a background job has run for hours; its lease is left to lapse');
        return;
      }
      renewRun(db, { name: job.name, instance, until: new Date(clock.now().getTime() + LEASE_MS) })
        .then((held) => {
          if (held) return;
          clearInterval(renewal);
          log.warn({ job: job.name }, 'a background job lost its lease while running; another instance may run it');
        })
        .catch((err: unknown) => log.warn({ err, job: job.name }, 'could not renew the lease of a background job'));
    }, LEASE_MS / 3);
    renewal.unref();
    let outcome: JobOutcome;
    try {
      const items = await job.run(startedAt);
      outcome = { name: job.name, ran: true, items };
      if (items > 0) log.info({ job: job.name, items }, 'background job done');
    } catch (err) {
      outcome = { name: job.name, ran: true, error: err instanceof Error ? err.message : String(err) };
      log.error({ err, job: job.name }, 'background job failed');
    } finally {
      clearInterval(renewal);
    }
    await finishRun(db, {
      name: job.name,
      instance,
      now: clock.now(),
      items: outcome.items ?? null,
      error: outcome.error ?? null,
    });
    deps.onOutcome?.(outcome);
    return outcome;
  }

  function find(name: string): Job {
    const job = jobs.find((j) => j.name === name);
    if (!job) throw new Error(`no job named ${name}`);
    return job;
  }

  const scheduler = {
    jobs,
    ensureRows,
    /** Runs every due job once (one after another: the jobs share the connection pool with requests). */
    async tick(): Promise<JobOutcome[]> {
      const outcomes: JobOutcome[] = [];
      for (const job of jobs) outcomes.push(await runOne(job, false));
      return outcomes;
    },
    /** Runs one job now whether due or not (still once across instances). */
    runNow: (name: string) => runOne(find(name), true),
    async status(): Promise<JobStatus[]> {
      const rows = new Map((await listJobRuns(db)).map((row) => [row.name, row]));
      const now = clock.now();
      return jobs.map((job) => {
        const row = rows.get(job.name);
        return {
          name: job.name,
          description: job.description,
          everySeconds: job.everySeconds,
          lastStartedAt: row?.last_started_at?.toISOString() ?? null,
          lastFinishedAt: row?.last_finished_at?.toISOString() ?? null,
          lastStatus: row?.last_status ?? null,
          lastError: row?.last_error ?? null,
          lastItems: row?.last_items ?? null,
          runs: Number(row?.runs ?? 0),
          failures: Number(row?.failures ?? 0),
          running: row?.locked_until != null && row.locked_until > now,
        };
      });
    },
    /** Ticks every `seconds` (first after a random part of it, so instances started together spread out). */
    start(seconds: number): void {
      if (seconds <= 0 || timer) return;
      const tickFailures = createFailureRun(log, 'background job tick');
      const tickSafely = () => {
        ticking = scheduler.tick().then(tickFailures.succeeded, tickFailures.failed);
      };
      const first = setTimeout(
        () => {
          tickSafely();
          timer = setInterval(tickSafely, seconds * 1000);
          timer.unref();
        },
        Math.random() * seconds * 1000,
      );
      first.unref();
      timer = first;
    },
    async stop(): Promise<void> {
      clearTimeout(timer);
      clearInterval(timer);
      await ticking;
    },
  };
  return scheduler;
}

export type Scheduler = ReturnType<typeof createScheduler>;
