import { Counter, Gauge, type Registry } from 'prom-client';
import type { JobOutcome, Scheduler } from './scheduler.js';

/**
 * The scheduler in /metrics: runs by this instance (by job and result), and from the shared
 * `job_runs` table the last start and success of every job across instances.
 */
export function registerJobMetrics(registry: Registry, scheduler: Pick<Scheduler, 'status'>) {
  const runs = new Counter({
    name: 'redflag_job_runs_total',
    help: 'Background job runs by this instance',
    labelNames: ['job', 'result'] as const,
    registers: [registry],
  });
  const items = new Counter({
    name: 'redflag_job_items_total',
    help: 'Items handled by background jobs on this instance',
    labelNames: ['job'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'redflag_job_last_finished_timestamp_seconds',
    help: 'When each background job last finished (any instance), by its last status',
    labelNames: ['job', 'status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const job of await scheduler.status()) {
        if (job.lastFinishedAt)
          this.set({ job: job.name, status: job.lastStatus ?? 'unknown' }, Date.parse(job.lastFinishedAt) / 1000);
      }
    },
  });
  return (outcome: JobOutcome) => {
    if (!outcome.ran) return;
    runs.inc({ job: outcome.name, result: outcome.error ? 'failed' : 'ok' });
    if (outcome.items) items.inc({ job: outcome.name }, outcome.items);
  };
}
