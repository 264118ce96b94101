// Screening a customer book (analysts and admins): send a CSV file (its bytes counted as they go),
// then follow the job as it screens (rows, matches, rows a second, expected finish) and download
// the matched and the rejected rows. The download links name only the job, never a value.
import { type paths, uploadFile } from '../client/src/index.js';
import { api, byId, clearFieldErrors, momentText, showFieldErrors, tell } from './common.js';

/** A job as the service describes it (GET /api/v1/external/screenings/{id}). */
type Job = paths['/api/v1/external/screenings/{id}']['get']['responses'][200]['content']['application/json']['data']['job'];

const n = (value: number) => value.toLocaleString('en-GB');
const time = (iso: string) =>
  new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
let following: string | null = null;
let sending = false;

function describe(job: Job): string {
  if (job.status === 'failed') return `Failed: ${job.failure ?? 'the job stopped'}.`;
  const counts = `${n(job.rowsScreened)} of ${n(job.rowsRead)}${job.fileComplete ? '' : '+'} rows screened · ${n(job.matches)} matched · ${n(job.errors)} rejected`;
  if (job.status === 'done') return `Done: ${counts}.`;
  const pace = job.rowsPerSecond ? ` · ${n(job.rowsPerSecond)} rows a second` : '';
  const eta = job.estimatedFinishAt ? ` · expected to finish at ${time(job.estimatedFinishAt)}` : '';
  return `${counts}${pace}${eta}`;
}

function links(job: Job): HTMLElement {
  const span = document.createElement('span');
  for (const [name, text] of [
    ['matches', 'matched rows'],
    ['errors', 'rejected rows'],
  ] as const) {
    const a = Object.assign(document.createElement('a'), {
      href: `/api/v1/external/screenings/${job.id}/${name}.csv`,
      textContent: `Download the ${text} (CSV)`,
    });
    // Each job has these two links: the screen reader's name says which job's they are.
    a.setAttribute('aria-label', `Download the ${text} of the screening of ${momentText(job.createdAt)} (CSV)`);
    a.setAttribute('download', `screening-${name}.csv`);
    span.append(' ', a);
  }
  return span;
}

/** Follows one job until it ends, twice a second: the bar and the line say where it stands. */
async function follow(id: string): Promise<void> {
  following = id;
  const bar = byId<HTMLProgressElement>('screen-progress');
  const status = byId('screen-status');
  bar.hidden = false;
  for (;;) {
    const { data } = await api.GET('/api/v1/external/screenings/{id}', { params: { path: { id } } });
    if (following !== id) return;
    if (data) {
      const job = data.data.job;
      bar.max = Math.max(1, job.rowsRead);
      bar.value = job.rowsScreened;
      status.textContent = describe(job);
      if (job.status === 'done' || job.status === 'failed') {
        if (job.status === 'done') status.append(links(job));
        await loadScreenings();
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export async function loadScreenings(): Promise<void> {
  const { data } = await api.GET('/api/v1/external/screenings');
  const list = byId('screen-jobs');
  list.replaceChildren(
    ...(data?.data.jobs ?? []).map((job) => {
      const li = Object.assign(document.createElement('li'), {
        textContent: `${momentText(job.createdAt)}: ${describe(job)}`,
      });
      if (job.status === 'done') li.append(links(job));
      return li;
    }),
  );
  byId('screen-jobs-heading').hidden = list.children.length === 0;
}

export function initScreening(): void {
  byId<HTMLFormElement>('screen-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = byId<HTMLInputElement>('screen-file').files?.[0];
    const message = byId('screen-message');
    clearFieldErrors(byId('screen-form'));
    if (!file) return tell(message, 'Choose a CSV file first.', 'error');
    // A second press while the file goes would screen the same customers twice.
    if (sending) return tell(message, 'The file is still being sent; its progress is shown below.', 'error');
    tell(message, '');
    // The job followed before is not this one: its bar and its "Done" line go.
    following = null;
    byId('screen-progress').hidden = true;
    const status = byId('screen-status');
    status.textContent = 'Sending the file: 0%';
    const sent = byId<HTMLProgressElement>('screen-upload');
    sent.hidden = false;
    sent.value = 0;
    sent.max = file.size || 1;
    sending = true;
    const { data, error } = await uploadFile(location.origin, '/api/v1/external/screenings', file, (bytes, total) => {
      sent.max = total;
      sent.value = bytes;
      // The last byte sent, the service still reads the file in before it answers: say so, or 100% looks stuck.
      status.textContent =
        bytes >= total
          ? 'The file is sent; the service is reading it in…'
          : `Sending the file: ${Math.round((bytes / total) * 100)}%`;
    }).finally(() => {
      sending = false;
    });
    sent.hidden = true;
    // A "still being sent" said to a second press no longer holds.
    tell(message, '');
    if (!data) {
      status.textContent = '';
      // The reason is the file's own error (its header, a second file), said beside the file field.
      return showFieldErrors(byId('screen-form'), error ?? { message: 'The file could not be sent.' }, message);
    }
    await follow(data.data.job.id);
  });
}
