// The company's watchlist: identifiers of its own customers that Redflag watches (a report naming one
// raises a signed webhook). Add one, remove one, or import a CSV of up to 1,000,000 lines with its
// progress shown while it runs and every bad line listed by number afterwards.
import {
  api,
  byId,
  clearFieldErrors,
  identifierText,
  LABELS,
  labelInSentence,
  labelName,
  loadBanks,
  momentText,
  onClickOnce,
  onSubmitOnce,
  option,
  showFieldErrors,
  tell,
} from './common.js';
import { confirmAction } from './confirm.js';
import { initNamedReports, loadNamedReports, resetNamedReports } from './named-reports.js';
import { initMatches, loadMatches, resetMatches } from './watchlist-matches.js';

const PAGE = 20;

/** The page from the menu: what happened to the watched customers, public reports naming the bank, then the list. */
export async function openWatchlist(): Promise<void> {
  resetMatches();
  resetNamedReports();
  await Promise.all([loadMatches(), loadNamedReports(), loadWatchlist()]);
}

export async function loadWatchlist(): Promise<void> {
  const { data } = await api.GET('/api/v1/external/watchlist', { params: { query: { page: 1, limit: PAGE } } });
  if (!data) return;
  const { data: entries, meta } = data.data;
  byId('watch-count').textContent =
    `${meta.total.toLocaleString('en-GB')} identifier${meta.total === 1 ? '' : 's'} watched${meta.total > PAGE ? ` · the newest ${PAGE} below` : ''}`;
  const list = byId('watch-list');
  list.replaceChildren();
  for (const entry of entries) {
    const li = document.createElement('li');
    // An account as people write it ("0010246780 at Access Bank"), not in its stored form. One that
    // could not be opened is named by its kind and its reference (or when it was added, to tell two
    // apart): its encrypted token means nothing to a person.
    const ref = entry.ref ? ` (${entry.ref})` : '';
    const said = identifierText(entry.label, entry.value);
    const unreadable = `the ${labelInSentence(entry.label)} ${entry.ref ? `of ${entry.ref}` : `added ${momentText(entry.createdAt)}`}`;
    const value = entry.unreadable ? unreadable : said.slice(said.indexOf(': ') + 2);
    const removed = `${entry.unreadable ? `T${unreadable.slice(1)}` : value} is no longer watched.`;
    const text = Object.assign(document.createElement('span'), {
      textContent: entry.unreadable
        ? `A watched ${labelInSentence(entry.label)}${ref}: it could not be opened, and the operators are told.`
        : `${said}${ref}`,
    });
    const remove = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'secondary cell-control',
      textContent: 'Stop watching',
    });
    remove.setAttribute('aria-label', `Stop watching ${value}`);
    onClickOnce(remove, async () => {
      const sure = await confirmAction({
        title: `Stop watching ${value}?`,
        body: `Reports that name it no longer reach your webhooks${entry.ref ? `, and its reference ${entry.ref} is forgotten` : ''}. Added again later, it is not matched against the reports filed in between.`,
        confirmLabel: 'Stop watching',
      });
      if (!sure) return;
      const { error } = await api.DELETE('/api/v1/external/watchlist/{id}', { params: { path: { id: entry.id } } });
      // Said beside the list it changed, not in the form below it (out of sight on a phone).
      tell(byId('watch-list-message'), error ? error.message : removed, error ? 'error' : 'ok');
      // Its updates above lose the value and the reference that left with it.
      await Promise.all([loadWatchlist(), loadMatches()]);
    });
    li.append(text, ' ', remove);
    list.append(li);
  }
}

async function addOne(event: Event): Promise<void> {
  event.preventDefault();
  const form = byId('watch-form');
  const ref = byId<HTMLInputElement>('watch-ref').value.trim();
  const label = byId<HTMLSelectElement>('watch-label').value;
  let value = byId<HTMLInputElement>('watch-value').value;
  const bank = byId<HTMLSelectElement>('watch-bank').value;
  // An account is watched at its bank, chosen from the list (the stored form is <number>_<bank slug>).
  if (label === 'account' && value.trim() && !/_|[a-z]/i.test(value)) {
    if (!bank) {
      return showFieldErrors(
        form,
        {
          message: 'Choose the bank of the account.',
          data: { errors: [{ field: 'bank', message: 'Choose the bank of this account' }] },
        },
        byId('watch-message'),
      );
    }
    value = `${value.replace(/\s/g, '')}_${bank}`;
  }
  const { data, error } = await api.POST('/api/v1/external/watchlist', {
    body: {
      items: [
        {
          label,
          value,
          ...(ref ? { ref } : {}),
        },
      ],
    },
  });
  // The form is one item of the batch the service takes: its fields are named as the form's own.
  const formFields = (errors: { field: string; message: string }[] = []) =>
    errors.map((e) => ({ ...e, field: e.field.replace(/^items\/\d+\//, '') }));
  if (!data) {
    return showFieldErrors(
      form,
      { message: error?.message, data: { errors: formFields(error?.data?.errors) } },
      byId('watch-message'),
    );
  }
  const result = data.data.results[0];
  if (result && 'error' in result && result.error.code === 'DUPLICATE') {
    clearFieldErrors(form);
    return tell(byId('watch-message'), 'That is already on your watchlist: nothing was added.', 'ok');
  }
  if (result && 'error' in result) {
    // The item's own error, placed beside the value it is about.
    return showFieldErrors(
      form,
      {
        message: 'Not added.',
        data: { errors: formFields([result.error]) },
      },
      byId('watch-message'),
    );
  }
  clearFieldErrors(form);
  tell(byId('watch-message'), 'Added to the watchlist.', 'ok');
  byId<HTMLInputElement>('watch-value').value = '';
  byId<HTMLInputElement>('watch-ref').value = '';
  await loadWatchlist();
  // Under the form, below the fold of a wide screen once the list above has grown.
  byId('watch-message').scrollIntoView({ block: 'nearest' });
}

/** Lines of the file after its header: what the progress bar counts to. */
async function dataLines(file: File): Promise<number> {
  let lines = 0;
  let last = 10;
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const byte of value) if (byte === 10) lines++;
    last = value.at(-1) ?? last;
  }
  return Math.max(0, lines + (last === 10 ? 0 : 1) - 1);
}

/** The import whose upload broke off, and the file it was reading: sending that file again resumes it. */
let interrupted: { id: string; name: string; size: number; lastModified: number } | null = null;

async function importFile(event: Event): Promise<void> {
  event.preventDefault();
  const file = byId<HTMLInputElement>('import-file').files?.[0];
  const status = byId('import-status');
  const bar = byId<HTMLProgressElement>('import-progress');
  byId('import-errors').replaceChildren();
  if (!file) {
    status.textContent = 'Choose a CSV file first.';
    return;
  }
  // The same file sent again after a broken upload goes to the same import, which skips the lines it
  // already read; any other file starts a new one.
  const sameFile =
    interrupted?.name === file.name && interrupted.size === file.size && interrupted.lastModified === file.lastModified;
  let id = sameFile ? interrupted?.id : undefined;
  if (!id) {
    const created = await api.POST('/api/v1/external/watchlist/imports');
    if (!created.data) {
      status.textContent = created.error?.message ?? 'The import could not start.';
      return;
    }
    id = created.data.data.import.id;
  }
  interrupted = null;
  const importId = id;
  const total = await dataLines(file);
  bar.max = Math.max(1, total);
  bar.value = 0;
  bar.hidden = false;
  const show = (imp: { processedLines: number; importedRows: number; failedRows: number }) => {
    const read = Math.min(total, Math.max(0, imp.processedLines - 1));
    bar.value = read;
    status.textContent = `${read.toLocaleString('en-GB')} of ${total.toLocaleString('en-GB')} lines read · ${imp.importedRows.toLocaleString('en-GB')} added · ${imp.failedRows.toLocaleString('en-GB')} not added`;
  };
  status.textContent = 'Uploading…';
  // Progress comes from the import itself (committed a thousand lines at a time), asked twice a second.
  // An answer that arrives after the upload finished is dropped: it would overwrite the final count.
  let finished = false;
  const poll = setInterval(async () => {
    // A check that fails (the connection dropped) is skipped: the next one, or the upload's answer, says more.
    const { data } = await api
      .GET('/api/v1/external/watchlist/imports/{id}', { params: { path: { id: importId } } })
      .catch(() => ({ data: undefined }));
    if (data && !finished) show(data.data.import);
  }, 500);
  const form = new FormData();
  form.append('file', file);
  const sent = await api
    .POST('/api/v1/external/watchlist/imports/{id}/file', {
      params: { path: { id: importId } },
      body: form as never,
      bodySerializer: () => form,
    })
    .catch(() => undefined);
  finished = true;
  clearInterval(poll);
  const data = sent?.data;
  if (!data) {
    // The import itself says whether it can carry on: `interrupted` (the upload broke off) takes the
    // same file again and skips the lines it read; any other state starts afresh with the next file.
    const state = await api
      .GET('/api/v1/external/watchlist/imports/{id}', { params: { path: { id: importId } } })
      .catch(() => undefined);
    const resumable = state?.data?.data.import.status === 'interrupted';
    if (resumable) interrupted = { id: importId, name: file.name, size: file.size, lastModified: file.lastModified };
    const why = sent?.error?.message ?? 'The connection broke off before the file was read';
    status.textContent = resumable ? `${why}. Send the same file again to carry on where it stopped.` : `${why}.`;
    return;
  }
  const result = data.data.import;
  show(result);
  bar.value = bar.max;
  // The bad lines are listed before "Done" is said, so a reader (or a test) who sees "Done" sees them.
  if (result.failedRows > 0) {
    const errors = await api.GET('/api/v1/external/watchlist/imports/{id}/errors', {
      params: { path: { id: importId }, query: { page: 1, limit: 100 } },
    });
    const listed = errors.data?.data.data ?? [];
    const more = (errors.data?.data.meta.total ?? listed.length) - listed.length;
    byId('import-errors').replaceChildren(
      ...listed.map((e) => Object.assign(document.createElement('li'), { textContent: `Line ${e.line}: ${e.message}` })),
      // The list stops at 100: the count of the rest is said, so none is thought fine.
      ...(more > 0
        ? [
            Object.assign(document.createElement('li'), {
              textContent: `… and ${more.toLocaleString('en-GB')} more lines not added.`,
            }),
          ]
        : []),
    );
  }
  status.textContent = `Done: ${status.textContent}.`;
  await loadWatchlist();
}

export function initWatchlist(): void {
  const label = byId<HTMLSelectElement>('watch-label');
  for (const [value, text] of LABELS) label.append(option(value, text));
  void loadBanks(byId<HTMLSelectElement>('watch-bank'), (b) => b.slug);
  const showBank = () => {
    byId('watch-bank-field').hidden = label.value !== 'account';
    clearFieldErrors(byId('watch-form'));
  };
  label.addEventListener('change', showBank);
  showBank();
  onSubmitOnce(byId<HTMLFormElement>('watch-form'), addOne);
  onSubmitOnce(byId<HTMLFormElement>('import-form'), importFile);
  initMatches();
  initNamedReports();
}
