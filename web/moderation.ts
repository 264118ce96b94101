// The operators' queue of public reports: read one decoded (audited), publish it, or reject it with a reason.
import {
  api,
  byId,
  clearFieldErrors,
  dayText,
  emailText,
  evidenceItems,
  factPairs,
  fraudTypeName,
  identifierText,
  momentText,
  onClickOnce,
  onSubmitOnce,
  phoneText,
  readFromTitle,
  showFieldErrors,
  tell,
} from './common.js';
import { confirmAction, withinLimits } from './confirm.js';

let current: string | null = null;
let currentStatus: string | null = null;
let currentReference = '';
// As the person filing saw them on the form.
const REPORTERS: Record<string, string> = {
  self: 'the victim',
  witness: 'someone who saw it happen',
  representative: 'someone reporting for the victim',
  guest: 'someone else',
};
const STATUS: Record<string, string> = { draft: 'waiting for a decision', published: 'published', rejected: 'rejected' };
const text = (tag: string, content: string) => Object.assign(document.createElement(tag), { textContent: content });

type Listed = {
  id: string;
  reference: string;
  status: string;
  fraudType: string;
  fraudReason: string;
  financialInstitution: string;
  createdAt: string;
};

export async function loadQueue(): Promise<void> {
  const { data } = await api.GET('/api/v1/admin/public-reports', { params: { query: { status: 'draft', page: 1, limit: 50 } } });
  if (!data) return;
  const { data: items, meta } = data.data;
  byId('moderation-count').textContent = `${meta.total} waiting`;
  showList(byId('moderation-list'), items, false);
}

/** Reports as buttons that open them; `withStatus` for a lookup, whose reports may be in any state. */
function showList(list: HTMLElement, items: Listed[], withStatus: boolean): void {
  list.replaceChildren();
  for (const item of items) {
    const when = dayText(item.createdAt);
    const status = withStatus ? ` · ${STATUS[item.status] ?? item.status}` : '';
    const open = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'link-dark',
      textContent: `${item.reference} · ${fraudTypeName(item.fraudType)} · ${item.financialInstitution} · ${when}${status}`,
    });
    // The story's opening words (masked) tell apart reports of one kind, bank and day.
    const opening = Object.assign(document.createElement('p'), {
      className: 'wrap',
      textContent: item.fraudReason.length > 90 ? `${item.fraudReason.slice(0, 90)}…` : item.fraudReason,
    });
    open.addEventListener('click', () => void openReport(item.id));
    const li = document.createElement('li');
    li.append(open, opening);
    list.append(li);
  }
}

function amountLost(victim: { amountLost: number | null; currency: string | null } | null): string {
  if (victim?.amountLost == null) return '—';
  return `${victim.currency ?? 'NGN'} ${victim.amountLost.toLocaleString('en-NG')}`;
}

/**
 * A victim or a reporter: the name, then the e-mail address (which may break after its @) and the
 * phone number (which never breaks: "+23480987654" over "32" was misread).
 */
function personText(person: { name?: string | null; email?: string | null; phone?: string | null } | null): Node {
  const out = document.createDocumentFragment();
  const parts: (string | Node)[] = [];
  if (person?.name) parts.push(person.name);
  if (person?.email) parts.push(emailText(person.email));
  if (person?.phone) parts.push(phoneText(person.phone));
  for (const [n, part] of parts.entries()) out.append(...(n ? [', ', part] : [part]));
  if (parts.length === 0) out.append('—');
  return out;
}

/**
 * The report's facts in the grid. A person with contact details, and the reason given for a
 * decision (up to 500 characters), take a whole row: in one cell of a phone's two they broke
 * mid-number or ran down the screen.
 */
function factGrid(facts: [string, string | Node, ('wide' | 'note')?][]): HTMLElement[] {
  const pairs = factPairs(facts.map(([term, value]) => [term, value]));
  for (const [n, [, , width]] of facts.entries()) if (width) pairs[n]?.classList.add('wide', width);
  return pairs;
}

async function openReport(id: string): Promise<void> {
  const { data } = await api.GET('/api/v1/admin/public-reports/{id}', { params: { path: { id } } });
  if (!data) return;
  const r = data.data.report;
  current = id;
  currentStatus = r.status;
  currentReference = r.reference;
  byId('moderation-title').textContent = `${fraudTypeName(r.fraudType)} — ${STATUS[r.status] ?? r.status}`;
  const reachable = (p: { email?: string | null; phone?: string | null } | null) => (p?.email || p?.phone ? 'wide' : undefined);
  const facts: [string, string | Node, ('wide' | 'note')?][] = [
    ['Reference', r.reference],
    ['Reported by', REPORTERS[r.reportingEntity] ?? r.reportingEntity],
    ['Institution', r.financialInstitution],
    ['When', dayText(r.eventDate)],
    ['Victim', personText(r.victim), reachable(r.victim)],
    ['Reporter', personText(r.guestInfo), reachable(r.guestInfo)],
    ['Amount lost', amountLost(r.victim)],
  ];
  // Why and when it was decided: what an operator needs when the filer quotes the reference.
  if (r.moderatedAt) facts.push([r.status === 'rejected' ? 'Rejected' : 'Decided', momentText(r.moderatedAt)]);
  if (r.rejectionReason) facts.push(['Reason given', r.rejectionReason, 'note']);
  byId('moderation-details').replaceChildren(...factGrid(facts));
  // Only what the report's state allows: a draft is published or rejected, a published one taken down.
  byId('moderation-publish').hidden = r.status !== 'draft';
  byId('reject-form').hidden = r.status === 'rejected';
  const takeDown = r.status === 'published';
  byId('reject-button').textContent = takeDown ? 'Take down' : 'Reject';
  byId('reject-label').textContent =
    `Reason for ${takeDown ? 'taking it down' : 'rejecting'} (10 to 500 characters, never shown publicly)`;
  byId('moderation-reason').textContent = r.fraudReason;
  byId('moderation-identifiers').replaceChildren(...r.identifiers.map((i) => text('li', identifierText(i.label, i.value))));
  // The evidence is what a decision rests on.
  byId('moderation-evidence-heading').textContent = r.attachments.length
    ? `Evidence files (${r.attachments.length})`
    : 'No evidence files';
  byId('moderation-evidence').replaceChildren(...evidenceItems(r.attachments));
  byId('moderation-message').textContent = '';
  // The reason typed for another report, and its errors, are not this report's.
  byId<HTMLTextAreaElement>('reject-reason').value = '';
  clearFieldErrors(byId('reject-form'));
  byId('moderation-report').hidden = false;
  readFromTitle(byId('moderation-title'));
}

/** The decision is said, and the keyboard's focus goes to the next report waiting (or the count, when none is). */
async function decided(message: string): Promise<void> {
  byId('moderation-report').hidden = true;
  current = null;
  // A lookup's list showed the report's earlier state.
  byId('reference-list').hidden = true;
  byId('reference-message').textContent = '';
  await loadQueue();
  byId('moderation-count').textContent += ` · ${message}`;
  (byId('moderation-list').querySelector<HTMLElement>('button') ?? byId('moderation-count')).focus();
}

export function initModeration(): void {
  onSubmitOnce(byId<HTMLFormElement>('reference-form'), async () => {
    const form = byId<HTMLFormElement>('reference-form');
    const message = byId('reference-message');
    const list = byId('reference-list');
    const reference = byId<HTMLInputElement>('moderation-reference').value.trim();
    clearFieldErrors(form);
    list.hidden = true;
    // The report an earlier lookup opened is not this lookup's answer, whatever comes back.
    byId('moderation-report').hidden = true;
    if (!reference) {
      return showFieldErrors(form, { data: { errors: [{ field: 'reference', message: 'Type a reference first' }] } }, message);
    }
    const { data, error } = await api.GET('/api/v1/admin/public-reports', {
      params: { query: { reference, page: 1, limit: 20 } },
    });
    if (!data) return showFieldErrors(form, error, message);
    const items = data.data.data;
    const total = data.data.meta.total;
    tell(
      message,
      total === 0
        ? `No public report has the reference ${reference}.`
        : total === 1
          ? 'One report has this reference.'
          : `${total} reports share this reference${total > items.length ? ` (the newest ${items.length} below)` : ''}: tell them apart by date and story.`,
      total === 0 ? 'error' : 'ok',
    );
    showList(list, items, true);
    list.hidden = items.length === 0;
    if (items.length === 1) await openReport((items[0] as Listed).id);
    else list.querySelector<HTMLElement>('button')?.focus();
  });
  onClickOnce(byId('moderation-publish'), async () => {
    if (!current) return;
    const { data, error } = await api.POST('/api/v1/admin/public-reports/{id}/publish', { params: { path: { id: current } } });
    if (!data) byId('moderation-message').textContent = error?.message ?? 'That did not work.';
    else await decided('published');
  });
  onSubmitOnce(byId<HTMLFormElement>('reject-form'), async () => {
    if (!current) return;
    const reason = byId<HTMLTextAreaElement>('reject-reason').value;
    const takeDown = currentStatus === 'published';
    const sure =
      !withinLimits(reason, 10, 500) ||
      (await confirmAction(
        takeDown
          ? {
              title: `Take down the public report ${currentReference}?`,
              body: 'It leaves the list at once, and institutions that follow the public reports naming them are told. It cannot be published again.',
              confirmLabel: 'Take down',
            }
          : {
              title: `Reject the public report ${currentReference}?`,
              body: 'It will not be published, now or later. This cannot be undone.',
              confirmLabel: 'Reject report',
            },
      ));
    if (!sure) return;
    const { data, error } = await api.POST('/api/v1/admin/public-reports/{id}/reject', {
      params: { path: { id: current } },
      body: { reason },
    });
    if (!data) return showFieldErrors(byId('reject-form'), error, byId('moderation-message'));
    byId<HTMLTextAreaElement>('reject-reason').value = '';
    await decided(currentStatus === 'published' ? 'taken down' : 'rejected');
  });
}
