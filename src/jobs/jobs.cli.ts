import type { Command } from 'commander';
import type { AdminRunner } from '../modules/admin/admin.cli.js';

interface JobRunJson {
  name: string;
  locked_until: string | null;
  last_started_at: string | null;
  last_finished_at: string | null;
  last_status: string | null;
  last_error: string | null;
  last_items: number | null;
  runs: string | number;
  failures: string | number;
}

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

/** `redflag jobs status`: every background job's last run across instances (the `job_runs` table). */
export function registerJobsCommands(program: Command, run: AdminRunner): void {
  const jobs = program.command('jobs').description('background jobs (one scheduler, each run once across instances)');
  jobs
    .command('status')
    .description("each job's last start, finish, result and items, and whether it is running now")
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const r = (await run('jobs.status', {})) as { jobs: JobRunJson[] };
      if (o.json) return console.log(JSON.stringify(r, null, 2));
      if (r.jobs.length === 0) return console.log('No job has run yet (the server registers them when it starts).');
      const now = Date.now();
      const rows = r.jobs.map((j) => [
        j.name,
        j.locked_until && Date.parse(j.locked_until) > now ? 'running' : (j.last_status ?? 'never run'),
        when(j.last_started_at),
        when(j.last_finished_at),
        String(j.last_items ?? '-'),
        `${j.runs}/${j.failures}`,
        j.last_error ?? '',
      ]);
      const headers = ['JOB', 'STATE', 'LAST START', 'LAST FINISH', 'ITEMS', 'RUNS/FAILED', 'ERROR'];
      const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
      for (const line of [headers, ...rows])
        console.log(
          line
            .map((c, i) => c.padEnd(widths[i] ?? 0))
            .join('  ')
            .trimEnd(),
        );
    });
}
