// Disputes, both sides of the table. A company analyst raises a dispute on another member's report
// (from a search result), answers the disputes raised on the company's own reports (uphold with a
// statement, or take the report off the list), and escalates an upheld one. Operators decide the
// escalated ones. Nothing here ever shows an identifier's value: disputes name reports, not people.

import type { paths } from '../client/src/index.js';
import {
  api,
  byId,
  characterCount,
  clearFieldErrors,
  dayText,
  evidenceItems,
  factPairs,
  fraudTypeName,
  identifierText,
  onClickOnce,
  onSubmitOnce,
  showFieldErrors,
  tell,
} from './common.js';
import { confirmAction, withinLimits } from './confirm.js';
import { viewer } from './viewer.js';

/** A dispute as the service describes it to either side and the operators. */
type Dispute = paths['/api/v1/external/disputes/{id}']['get']['responses'][200]['content']['application/json']['data']['dispute'];

const STATUS: Record<string, string> = {
  open: 'waiting for the reporting member',
  upheld: 'upheld by the reporting member',
  escalated: 'with the operators',
  exited: 'report taken off the list',
  timed_out: 'not answered in time: report taken off the list',
  kept: 'operators kept the report',
  removed: 'operators removed the report',
};
const day = dayText;
const text = (tag: string, content: string) => Object.assign(document.createElement(tag), { textContent: content });
let shown: Dispute | null = null;

export async function loadDisputes(): Promise<void> {
  const status = (byId<HTMLSelectElement>('disputes-status').value || undefined) as 'open' | undefined;
  const side = (byId<HTMLSelectElement>('disputes-side').value || undefined) as 'raised' | undefined;
  const query = { page: 1, limit: 50, ...(status ? { status } : {}) };
  const answer = viewer.companyId
    ? await api.GET('/api/v1/external/disputes', { params: { query: { ...query, ...(side ? { side } : {}) } } })
    : await api.GET('/api/v1/admin/disputes', { params: { query } });
  if (!answer.data) {
    byId('disputes-count').textContent = answer.error?.message ?? 'Could not load the disputes.';
    return;
  }
  const { data: items, meta } = answer.data.data;
  byId('disputes-count').textContent = `${meta.total} dispute${meta.total === 1 ? '' : 's'}`;
  byId('disputes-list').replaceChildren(
    ...items.map((d) => {
      const open = Object.assign(document.createElement('button'), {
        type: 'button',
        className: 'link-dark',
        // The report as a person knows it first: two disputes between the same members still differ.
        textContent: `${fraudTypeName(d.report.fraudType)} report by ${d.reportingCompany.businessName}${
          d.report.publishedAt ? `, listed ${day(d.report.publishedAt)}` : ''
        } · ${whoDisputes(d)} · ${statusText(d)}`,
      });
      open.addEventListener('click', () => show(d));
      const li = document.createElement('li');
      li.append(open, text('p', `Opened ${day(d.openedAt)}`));
      return li;
    }),
  );
}

/** The state in words; "you" when the answer is this member's to give, with its date. */
function statusText(d: Dispute): string {
  if (d.status === 'open' && d.reportingCompany.id === viewer.companyId) return `waiting for your answer by ${day(d.respondBy)}`;
  return STATUS[d.status] ?? d.status;
}

function whoDisputes(d: Dispute): string {
  if (d.raisedByOperator) return 'Raised by the operators';
  return d.disputingCompany?.id === viewer.companyId ? 'Raised by you' : `Raised by ${d.disputingCompany?.businessName}`;
}

function show(d: Dispute): void {
  // What was typed for another dispute is not an answer to this one.
  if (shown?.id !== d.id) {
    for (const form of ['uphold-form', 'dispute-exit-form', 'decide-form']) {
      byId<HTMLFormElement>(form).reset();
      for (const area of byId(form).querySelectorAll('textarea')) area.dispatchEvent(new Event('input'));
    }
  }
  shown = d;
  const mine = d.reportingCompany.id === viewer.companyId;
  byId('dispute-title').textContent = `Dispute — ${statusText(d)}`;
  const facts: [string, string][] = [
    ['Report', `${fraudTypeName(d.report.fraudType)}${d.report.publishedAt ? `, listed ${day(d.report.publishedAt)}` : ''}`],
    ['Reported by', d.reportingCompany.businessName],
    ['Disputed by', d.raisedByOperator ? 'the operators' : (d.disputingCompany?.businessName ?? '—')],
    ['Opened', day(d.openedAt)],
    // A deadline only while it binds: after an answer or a decision it is history, not a date to meet.
    ...(d.status === 'open' ? [['Answer due', day(d.respondBy)] as [string, string]] : []),
  ];
  byId('dispute-facts').replaceChildren(...factPairs(facts));
  byId('dispute-reason').textContent = d.reason;
  byId('dispute-statement').textContent = d.ownerStatement ? `The reporting member's answer: ${d.ownerStatement}` : '';
  byId('dispute-decision').textContent = d.decisionReason ? `The operators' decision: ${d.decisionReason}` : '';
  // The operators decide on the report itself, read when they ask (each reading is audited).
  byId('dispute-report').hidden = true;
  byId('dispute-read-report').hidden = viewer.companyId !== null;
  // Each action only where the dispute's state and the viewer's side allow it (dispute-states.ts).
  byId('uphold-form').hidden = !(mine && d.status === 'open');
  byId('dispute-exit-form').hidden = !(mine && (d.status === 'open' || d.status === 'upheld'));
  // A side asks the operators to decide an upheld dispute; so do the operators of one they raised.
  byId('escalate').hidden = !(d.status === 'upheld' && (viewer.companyId !== null || d.raisedByOperator));
  byId('decide-form').hidden = !(!viewer.companyId && d.status === 'escalated');
  for (const form of ['uphold-form', 'dispute-exit-form', 'decide-form']) clearFieldErrors(byId(form));
  tell(byId('dispute-message'), '');
  byId('dispute').hidden = false;
  byId('dispute').focus();
}

async function answered(
  result: { data?: { data: { dispute: Dispute } }; error?: { message: string } },
  form: string,
  message: string,
  plain: Record<string, string> = {},
) {
  if (!result.data) return showFieldErrors(byId(form), result.error, byId('dispute-message'), plain);
  await loadDisputes();
  show(result.data.data.dispute);
  tell(byId('dispute-message'), message);
}

/** Opens the page's form to dispute a report found by a search. */
let cancelledBack: (() => void) | undefined;

/** `back`: where Cancel returns (the search result the dispute was started from). */
export function startDispute(reportId: string, about: string, back?: () => void): void {
  cancelledBack = back;
  byId('raise-about').textContent = about;
  byId<HTMLInputElement>('raise-report').value = reportId;
  byId('raise-message').textContent = '';
  byId('raise-box').hidden = false;
  byId('raise-reason').focus();
}

export function initDisputes(): void {
  byId('raise-cancel').addEventListener('click', () => {
    byId('raise-box').hidden = true;
    byId<HTMLTextAreaElement>('raise-reason').value = '';
    byId('raise-reason').dispatchEvent(new Event('input'));
    if (cancelledBack) return cancelledBack();
    const heading = byId('raise-box').closest('section')?.querySelector<HTMLElement>('h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  });
  characterCount(byId<HTMLTextAreaElement>('raise-reason'), byId('raise-reason-count'), 50, 2000);
  characterCount(byId<HTMLTextAreaElement>('uphold-statement'), byId('uphold-statement-count'), 50, 2000);
  byId<HTMLFormElement>('disputes-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    void loadDisputes();
  });
  onSubmitOnce(byId<HTMLFormElement>('raise-form'), async (event) => {
    event.preventDefault();
    const { data, error } = await api.POST('/api/v1/external/disputes', {
      body: { reportId: byId<HTMLInputElement>('raise-report').value, reason: byId<HTMLTextAreaElement>('raise-reason').value },
    });
    if (!data) return showFieldErrors(byId('raise-form'), error, byId('raise-message'));
    byId<HTMLTextAreaElement>('raise-reason').value = '';
    byId('raise-box').hidden = true;
    await loadDisputes();
    show(data.data.dispute);
    byId('dispute-message').dataset.tone = 'ok';
    byId('dispute-message').textContent =
      `Dispute sent. The reporting member must answer by ${day(data.data.dispute.respondBy)}.`;
  });
  const current = () => ({ params: { path: { id: shown?.id ?? '' } } });
  onSubmitOnce(byId<HTMLFormElement>('uphold-form'), async (event) => {
    event.preventDefault();
    const statement = byId<HTMLTextAreaElement>('uphold-statement').value;
    await answered(
      await api.POST('/api/v1/external/disputes/{id}/uphold', { ...current(), body: { statement } }),
      'uphold-form',
      'You stood by the report. The other side may ask the operators to decide.',
    );
  });
  onSubmitOnce(byId<HTMLFormElement>('dispute-exit-form'), async (event) => {
    event.preventDefault();
    const reason = byId<HTMLTextAreaElement>('dispute-exit-reason').value;
    const sure =
      !withinLimits(reason, 10, 500) ||
      (await confirmAction({
        title: `Take the ${fraudTypeName(shown?.report.fraudType ?? 'other').toLowerCase()} report off the list?`,
        body: 'This answers the dispute, and it cannot be taken back: only the operators can put the report on the list again.',
        confirmLabel: 'Take off the list',
      }));
    if (!sure) return;
    await answered(
      await api.POST('/api/v1/external/disputes/{id}/exit', { ...current(), body: { reason } }),
      'dispute-exit-form',
      'The report is off the list.',
    );
  });
  onClickOnce(byId('dispute-read-report'), async () => {
    if (!shown) return;
    const { data, error } = await api.GET('/api/v1/admin/reports/{id}', { params: { path: { id: shown.reportId } } });
    if (!data) return tell(byId('dispute-message'), error?.message ?? 'Could not read the report.', 'error');
    const r = data.data.report;
    byId('dispute-report-reason').textContent = r.fraudReason;
    byId('dispute-report-identifiers').replaceChildren(...r.identifiers.map((i) => text('li', identifierText(i.label, i.value))));
    byId('dispute-report-evidence').replaceChildren(...evidenceItems(r.attachments));
    byId('dispute-read-report').hidden = true;
    byId('dispute-report').hidden = false;
    byId('dispute-report').focus();
  });
  onClickOnce(byId('escalate'), async () => {
    await answered(await api.POST('/api/v1/external/disputes/{id}/escalate', current()), 'uphold-form', 'Sent to the operators.');
  });
  onSubmitOnce(byId<HTMLFormElement>('decide-form'), async (event) => {
    event.preventDefault();
    // Nothing chosen until the operator chooses: a default would decide for them.
    const outcome = byId<HTMLSelectElement>('decide-outcome').value as 'keep' | 'remove';
    const reason = byId<HTMLTextAreaElement>('decide-reason').value;
    // Keeping the report changes nothing on the list; removing it does, for good.
    const sure =
      outcome !== 'remove' ||
      !withinLimits(reason, 10, 500) ||
      (await confirmAction({
        title: `Remove the ${fraudTypeName(shown?.report.fraudType ?? 'other').toLowerCase()} report by ${shown?.reportingCompany.businessName} from the list?`,
        body: 'The decision is final and closes the dispute: both members are told at once.',
        confirmLabel: 'Remove report',
      }));
    if (!sure) return;
    await answered(
      await api.POST('/api/v1/admin/disputes/{id}/decide', { ...current(), body: { outcome, reason } }),
      'decide-form',
      outcome === 'keep' ? 'Decided: the report stays on the list.' : 'Decided: the report is off the list.',
      { outcome: 'Choose whether the report stays on the list or leaves it' },
    );
  });
}
