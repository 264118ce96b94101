// The company's own submissions: filters and pages as the API has them; one submission with
// "reveal values" (decode, audited) behind an explicit button; publish a draft; exit and relist with a reason.
import {
  api,
  byId,
  characterCount,
  clearFieldErrors,
  dayText,
  evidenceItems,
  FRAUD_TYPES,
  fraudTypeName,
  identifierText,
  LABELS,
  onClickOnce,
  onSubmitOnce,
  option,
  pageButtons,
  REPORT_FORM_IN_WORDS,
  readFrom,
  showFieldErrors,
  tell,
} from './common.js';
import { type Confirmation, confirmAction, withinLimits } from './confirm.js';
import { EvidenceList } from './evidence.js';
import {
  identifierRow,
  MAX_IDENTIFIER_ROWS,
  missingBanks,
  readIdentifiers,
  wireAddIdentifier,
  withBankErrors,
} from './identifier-rows.js';

const LIMIT = 10;
let page = 1;
let current: string | null = null;
/** The open submission's kind in words ("Money mule"), for the question before it leaves the list. */
let currentType = '';
let draftEvidence: EvidenceList;
/** Identifiers are sent with a draft edit only once revealed for editing: untouched, they stay as they are. */
let editingIdentifiers = false;
/** The draft form as loaded (draftSnapshot), to see unsaved changes before publishing. */
let savedDraft = '';

function query() {
  const value = (id: string) => byId<HTMLSelectElement>(id).value || undefined;
  return {
    page,
    limit: LIMIT,
    status: value('filter-status') as 'draft' | undefined,
    listingStatus: value('filter-listing') as 'listed' | undefined,
    fraudType: value('filter-type') as 'other' | undefined,
    // Days as the API takes them (a UTC day; "until" covers its whole day).
    from: byId<HTMLInputElement>('filter-from').value || undefined,
    to: byId<HTMLInputElement>('filter-to').value || undefined,
  };
}

export async function loadSubmissions(): Promise<void> {
  const { data, error } = await api.GET('/api/v1/external/reports/submissions', { params: { query: query() } });
  if (!data) {
    // The earlier list is not the answer to these filters: it goes with the error.
    byId('submissions-list').replaceChildren();
    return showFieldErrors(byId('submissions-filter'), error, byId('submissions-count'));
  }
  clearFieldErrors(byId('submissions-filter'));
  const { data: items, meta } = data.data;
  const pages = Math.max(1, Math.ceil(meta.total / meta.limit));
  byId('submissions-count').textContent =
    `${meta.total} submission${meta.total === 1 ? '' : 's'} · page ${meta.page} of ${pages}`;
  byId<HTMLButtonElement>('page-previous').disabled = page <= 1;
  byId<HTMLButtonElement>('page-next').disabled = page >= pages;
  const list = byId('submissions-list');
  list.replaceChildren();
  for (const item of items) {
    const li = document.createElement('li');
    const open = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'link-dark',
      textContent: `${fraudTypeName(item.fraudType)} · ${standing(item)} · ${dayText(item.createdAt)}`,
    });
    open.addEventListener('click', () => void openSubmission(item.id));
    li.append(open, Object.assign(document.createElement('p'), { textContent: item.fraudReason }));
    list.append(li);
  }
}

/** Where a report stands, in words: a draft is on no list, whatever its listing field says. */
function standing(r: { status: string; listingStatus: string }): string {
  if (r.status === 'draft') return 'draft, not published';
  return r.listingStatus === 'listed' ? 'on the list' : 'taken off the list';
}

async function openSubmission(id: string): Promise<void> {
  const { data } = await api.GET('/api/v1/external/reports/submissions/{id}', { params: { path: { id } } });
  if (!data) return;
  const r = data.data.report;
  current = id;
  currentType = fraudTypeName(r.fraudType);
  byId('submission-title').textContent = `${fraudTypeName(r.fraudType)} — ${standing(r)}`;
  byId('submission-reason').textContent = r.fraudReason;
  showIdentifiers(r.identifiers.map((i) => [i.label, 'hidden until revealed']));
  byId('publish-draft').hidden = r.status !== 'draft';
  // A draft's type and reason can be changed until it is published; a published report never.
  byId('draft-form').hidden = r.status !== 'draft';
  byId<HTMLSelectElement>('draft-type').value = r.fraudType;
  const reason = byId<HTMLTextAreaElement>('draft-reason');
  reason.value = r.fraudReason;
  reason.dispatchEvent(new Event('input'));
  clearFieldErrors(byId('draft-form'));
  editingIdentifiers = false;
  byId('draft-identifiers').replaceChildren();
  byId('draft-identifiers-box').hidden = true;
  byId('draft-edit-identifiers').hidden = false;
  draftEvidence.reset(r.attachments);
  savedDraft = draftSnapshot();
  // A published report's evidence is read here (a draft's is edited in its form); links expire in minutes.
  const files = r.status === 'draft' ? [] : r.attachments;
  byId('submission-evidence-box').hidden = files.length === 0;
  byId('submission-evidence').replaceChildren(...evidenceItems(files));
  // Off the list through a dispute or by the operators, only the operators may put it back: the
  // button would only be refused, so the page says so instead.
  const operatorsOnly = r.exitedBy === 'dispute' || r.exitedBy === 'operators';
  byId('submission-exit').textContent =
    r.listingStatus === 'exited' && r.exitedListAt
      ? `Taken off the list on ${dayText(r.exitedListAt)}${r.exitedBy === 'dispute' ? ' through a dispute' : r.exitedBy === 'operators' ? ' by the operators' : ''}${r.exitListReason ? `: ${r.exitListReason}` : '.'}${operatorsOnly ? ' Only the operators can put it back on the list; write to them with your evidence.' : ''}`
      : '';
  byId('exit-form').hidden = r.status !== 'published' || r.listingStatus !== 'listed';
  // A listing ends after its period (six years by default) unless renewed in its last 90 days.
  // Once the period has ended, renewing (with a statement) is how it comes back, for a new period.
  const expired = r.exitedBy === 'expiry';
  const renewable = expired || (r.renewableFrom !== null && Date.parse(r.renewableFrom) <= Date.now());
  byId('submission-period').textContent = r.listedUntil
    ? `On the list until ${dayText(r.listedUntil)}${renewable ? '; renew it below to keep it there.' : `; it can be renewed from ${dayText(r.renewableFrom ?? r.listedUntil)}.`}`
    : expired
      ? 'Its listing period ended; renew it below to put it back on the list for a new period.'
      : '';
  byId('renew-form').hidden = !renewable;
  // What was typed for another report, and its errors, are not this one's.
  for (const form of ['renew-form', 'exit-form']) {
    byId<HTMLFormElement>(form).reset();
    clearFieldErrors(byId(form));
  }
  byId('renew-statement').dispatchEvent(new Event('input'));
  byId('relist').hidden = r.listingStatus !== 'exited' || operatorsOnly || expired;
  byId('reveal').hidden = false;
  byId('submission-message').textContent = '';
  byId('submission').hidden = false;
  byId('submission').focus();
}

async function reveal(): Promise<{ label: string; value: string }[] | undefined> {
  if (!current) return;
  const { data, error } = await api.GET('/api/v1/external/reports/submissions/{id}/decode', {
    params: { path: { id: current } },
  });
  if (!data) {
    byId('submission-message').textContent = error?.message ?? 'Could not reveal the values.';
    return;
  }
  const identifiers = data.data.report.identifiers;
  showIdentifiers(identifiers.map((i) => [i.label, i.value]));
  // Shown now: a second press would only decode (and audit) the same values again.
  byId('reveal').hidden = true;
  // The keyboard was on the button just hidden: it goes on to what it revealed.
  readFrom(byId('submission-identifiers'));
  return identifiers;
}

function showIdentifiers(rows: [string, string][]): void {
  byId('submission-identifiers').replaceChildren(
    ...rows.map(([label, value]) => Object.assign(document.createElement('li'), { textContent: identifierText(label, value) })),
  );
}

/** What the draft form holds, to tell whether it changed since it was loaded or saved. */
function draftSnapshot(): string {
  return JSON.stringify([
    byId<HTMLSelectElement>('draft-type').value,
    byId<HTMLTextAreaElement>('draft-reason').value,
    draftEvidence.urls(),
  ]);
}

/**
 * Saves the draft form; false (with its errors shown) when the service refused it. Publishing
 * saves first when the form changed: "Publish" published the stored draft and dropped the edits.
 */
async function saveDraft(id: string): Promise<boolean> {
  if (draftEvidence.busy()) {
    byId('submission-message').textContent = 'The evidence files are still uploading. Save when each shows “added”.';
    return false;
  }
  const noBank = editingIdentifiers ? missingBanks(byId('draft-identifiers')) : undefined;
  const { data, error } = await api.PATCH('/api/v1/external/reports/submissions/{id}', {
    params: { path: { id } },
    body: {
      fraudType: byId<HTMLSelectElement>('draft-type').value as 'other',
      fraudReason: byId<HTMLTextAreaElement>('draft-reason').value,
      attachments: draftEvidence.urls(),
      ...(editingIdentifiers ? { identifiers: readIdentifiers(byId('draft-identifiers')) } : {}),
    },
  });
  if (!data) {
    showFieldErrors(byId('draft-form'), withBankErrors(noBank, error), byId('submission-message'), REPORT_FORM_IN_WORDS);
    return false;
  }
  return true;
}

async function act(path: 'publish' | 'relist', done: string): Promise<void> {
  if (!current) return;
  const id = current;
  // A file still uploading is not in the form yet: publishing now would leave it out.
  if (path === 'publish' && draftEvidence.busy()) {
    byId('submission-message').textContent = 'The evidence files are still uploading. Publish when each shows “added”.';
    return;
  }
  const changed = path === 'publish' && (editingIdentifiers || draftSnapshot() !== savedDraft);
  if (changed && !(await saveDraft(id))) return;
  const url =
    path === 'publish' ? '/api/v1/external/reports/submissions/{id}/publish' : '/api/v1/external/reports/submissions/{id}/relist';
  const { data, error } = await api.POST(url, { params: { path: { id } } });
  const said = changed ? `${done} Your changes were saved first.` : done;
  const refused = `${error?.message ?? 'That did not work.'}${changed ? ' Your changes were saved; the draft is not published.' : ''}`;
  await after(id, data ? said : refused, data ? 'ok' : 'error');
}

async function after(id: string, message: string, tone: 'ok' | 'error' = 'ok'): Promise<void> {
  await openSubmission(id);
  await loadSubmissions();
  tell(byId('submission-message'), message, tone);
}

export function initSubmissions(): void {
  const type = byId<HTMLSelectElement>('filter-type');
  for (const [value, text] of FRAUD_TYPES) type.append(option(value, text));
  byId<HTMLFormElement>('submissions-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    page = 1;
    void loadSubmissions();
  });
  pageButtons(byId('page-previous'), byId('page-next'), byId('submissions-count'), {
    page: () => page,
    turn: (to) => {
      page = to;
      return loadSubmissions();
    },
  });
  onClickOnce(byId('reveal'), reveal);
  // Changing a draft's identifiers starts from their clear values, so it reveals them (audited) first.
  onClickOnce(byId('draft-edit-identifiers'), async () => {
    const identifiers = await reveal();
    if (!identifiers) return;
    const rows = byId('draft-identifiers');
    rows.replaceChildren(...identifiers.map((i, n) => identifierRow(n, LABELS, 'draft-identifier', i)));
    byId<HTMLButtonElement>('draft-add-identifier').disabled = identifiers.length >= MAX_IDENTIFIER_ROWS;
    editingIdentifiers = true;
    byId('draft-edit-identifiers').hidden = true;
    byId('draft-identifiers-box').hidden = false;
    rows.querySelector<HTMLElement>('input')?.focus();
  });
  wireAddIdentifier(byId<HTMLButtonElement>('draft-add-identifier'), byId('draft-identifiers'), LABELS, 'draft-identifier');
  draftEvidence = new EvidenceList(
    byId<HTMLInputElement>('draft-evidence'),
    byId('draft-evidence-list'),
    '/api/v1/external/uploads',
  );
  onClickOnce(byId('publish-draft'), () => act('publish', 'Published.'));
  const draftType = byId<HTMLSelectElement>('draft-type');
  for (const [value, text] of FRAUD_TYPES) draftType.append(option(value, text));
  characterCount(byId<HTMLTextAreaElement>('draft-reason'), byId('draft-reason-count'), 50, 2000);
  onSubmitOnce(byId<HTMLFormElement>('draft-form'), async (event) => {
    event.preventDefault();
    if (!current) return;
    const id = current;
    if (await saveDraft(id)) await after(id, 'Draft saved.');
  });
  onClickOnce(byId('relist'), () => act('relist', 'Back on the list.'));
  characterCount(byId<HTMLTextAreaElement>('renew-statement'), byId('renew-statement-count'), 50, 2000);
  // The listing's two changes with words of the owner's own: each one's text goes with it.
  const listingChange = (
    form: string,
    area: string,
    send: (id: string, text: string) => Promise<{ data?: { data: { report: { listedUntil: string | null } } }; error?: unknown }>,
    done: (report: { listedUntil: string | null }) => string,
    ask?: (text: string) => Confirmation | undefined,
  ) =>
    onSubmitOnce(byId<HTMLFormElement>(form), async (event) => {
      event.preventDefault();
      if (!current) return;
      const id = current;
      const question = ask?.(byId<HTMLTextAreaElement>(area).value);
      if (question && !(await confirmAction(question))) return;
      const { data, error } = await send(id, byId<HTMLTextAreaElement>(area).value);
      if (!data) return showFieldErrors(byId(form), error, byId('submission-message'));
      byId<HTMLTextAreaElement>(area).value = '';
      byId(area).dispatchEvent(new Event('input'));
      await after(id, done(data.data.report));
    });
  listingChange(
    'renew-form',
    'renew-statement',
    (id, statement) =>
      api.POST('/api/v1/external/reports/submissions/{id}/renew', { params: { path: { id } }, body: { statement } }),
    (report) => (report.listedUntil ? `Renewed: on the list until ${dayText(report.listedUntil)}.` : 'Renewed.'),
  );
  listingChange(
    'exit-form',
    'exit-reason',
    (id, reason) => api.POST('/api/v1/external/reports/submissions/{id}/exit', { params: { path: { id } }, body: { reason } }),
    () => 'Taken off the list.',
    (reason) =>
      withinLimits(reason, 10, 500)
        ? {
            title: `Take this ${currentType.toLowerCase()} report off the list?`,
            body: 'Members no longer find it, and those watching its details are told at once. You can put it back later while its listing period lasts.',
            confirmLabel: 'Take off the list',
          }
        : undefined,
  );
}
