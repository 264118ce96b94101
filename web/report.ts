// The public report form at /report: no sign-in, one page, plain words; the service's own messages beside each field.
// At /report#status/<id>, the status of a report for the person who filed it (decision 0129).
import type { paths } from '../client/src/index.js';
import {
  api,
  byId,
  characterCount,
  detailsInWords,
  FRAUD_TYPES,
  LABELS,
  loadBanks,
  momentText,
  notSent,
  onSubmitOnce,
  option,
  publicFormAnswered,
  REPORT_FORM_IN_WORDS,
  showFieldErrors,
  tell,
} from './common.js';
import { EvidenceList } from './evidence.js';
import { identifierRow, missingBanks, readIdentifiers, wireAddIdentifier, withBankErrors } from './identifier-rows.js';
import { initStatusPage, statusHash } from './status-page.js';

const form = byId<HTMLFormElement>('report-form');
const message = byId('form-message');
const fraudType = byId<HTMLSelectElement>('fraudType');
// No kind chosen for the person: a report sent without a look at this list would say the first one.
fraudType.append(option('', 'Choose the kind of fraud'));
// A closed list shows its choice on one line, cut at a phone's width: shorter names here, same values.
const SHORTER: Record<string, string> = {
  social_engineering: 'Tricked out of money or a PIN',
  suspicious_pep: 'Suspicious public figure',
};
for (const [value, text] of FRAUD_TYPES) fraudType.append(option(value, SHORTER[value] ?? text));
const eventDate = byId<HTMLInputElement>('eventDate');
eventDate.max = new Date().toISOString().slice(0, 10);
void loadBanks(byId<HTMLSelectElement>('institution'), (b) => b.name);
characterCount(byId<HTMLTextAreaElement>('fraudReason'), byId('reason-count'), 50, 2000);

const rows = byId('identifiers');
rows.append(identifierRow(0, LABELS));
wireAddIdentifier(byId<HTMLButtonElement>('add-identifier'), rows, LABELS);

const evidence = new EvidenceList(byId<HTMLInputElement>('evidence'), byId('evidence-list'), '/api/v1/public/uploads');

// Someone reporting for another person is asked about themselves too; the victim is "you"
// when it happened to the person filing (the choice checked when the page opens).
const syncReporter = () => {
  const self = form.querySelector<HTMLInputElement>('input[name=reportingEntity]:checked')?.value === 'self';
  byId('reporter').hidden = self;
  byId('victim-legend').textContent = self ? 'About you' : 'About the person who lost money';
};
for (const radio of form.querySelectorAll<HTMLInputElement>('input[name=reportingEntity]')) {
  radio.addEventListener('change', syncReporter);
}
syncReporter();

const text = (id: string) => byId<HTMLInputElement>(id).value.trim();
function contact(prefix: string): Record<string, string> | undefined {
  const entries = Object.entries({
    name: text(`${prefix}Name`),
    email: text(`${prefix}Email`),
    phone: text(`${prefix}Phone`),
  }).filter(([, v]) => v !== '');
  return entries.length ? Object.fromEntries(entries) : undefined;
}

// One report per press; the button stays enabled (and focused) while it goes, so a keyboard user is not dropped.
onSubmitOnce(form, async () => {
  const entity = form.querySelector<HTMLInputElement>('input[name=reportingEntity]:checked')?.value ?? 'self';
  const victim: Record<string, string | number> = { ...contact('victim') };
  const amount = Number(text('amountLost').replace(/[,\s₦]/g, ''));
  if (text('amountLost') !== '') Object.assign(victim, { amountLost: amount, currency: 'NGN' });
  if (evidence.busy()) {
    tell(message, 'Your files are still uploading. Please send the report when each shows “added”.', 'error');
    return;
  }
  const noBank = missingBanks(rows);
  tell(message, 'Sending…', 'neutral');
  // Undefined when fetch itself failed (no connection, or it dropped): nothing reached us.
  const answer = await api
    .POST('/api/v1/public/reports', {
      body: {
        reportingEntity: entity as 'self',
        fraudType: fraudType.value as 'other',
        fraudReason: byId<HTMLTextAreaElement>('fraudReason').value,
        financialInstitution: byId<HTMLSelectElement>('institution').value,
        eventDate: eventDate.value,
        identifiers: readIdentifiers(rows),
        attachments: evidence.urls(),
        ...(Object.keys(victim).length ? { victim } : {}),
        ...(entity !== 'self' && contact('reporter') ? { guestInfo: contact('reporter') } : {}),
      },
    })
    .catch(() => undefined);
  if (!answer) return notSent(message);
  const { data, error, response } = answer;
  if (data) byId<HTMLAnchorElement>('status-link').href = `/report${statusHash(data.data.id)}`;
  if (publicFormAnswered(form, message, 'reports', data?.data.reference, response)) return;
  const errors = withBankErrors(noBank, error);
  showFieldErrors(form, errors, message, {
    ...detailsInWords(errors),
    ...REPORT_FORM_IN_WORDS,
    financialInstitution: 'Choose the bank or institution from the list',
    // Left empty, the date needs asking for, not its format explained.
    ...(eventDate.value ? {} : { eventDate: 'Give the date it happened' }),
    // "₦250k" or "250 thousand" is no number to the service: say how to write it.
    ...(text('amountLost') !== '' && !Number.isFinite(amount)
      ? { 'victim/amountLost': 'Write the amount in digits only, such as 250000' }
      : {}),
    // The service's "must be at least 0", for a person.
    ...(amount < 0 ? { 'victim/amountLost': 'The amount cannot be below zero.' } : {}),
  });
});

// ---- The status page (decision 0129; the view is status-page.ts) ----

type StatusAnswer = paths['/api/v1/public/reports/{id}/status']['get']['responses'][200]['content']['application/json']['data'];

/** What each status means to the person who filed, and what happens next: only what the service does. */
const STATUS_IN_WORDS: Record<StatusAnswer['status'], { heading: string; meaning: string; next: string }> = {
  received: {
    heading: 'Received: waiting for review',
    meaning:
      'Your report has reached us. One of our operators checks every report before member banks can see it; until then, no bank sees it.',
    next: 'We cannot say exactly when it will be checked. Come back to this page later to see what was decided. A report that is not checked in time is deleted; this page then no longer finds it.',
  },
  published: {
    heading: 'Published: shared with member banks',
    meaning:
      'An operator checked your report and shared it. Member banks now see it when they check the details you gave of the person, such as a phone or account number.',
    next: 'You do not need to do anything more. This does not return any money: if you lost money, speak to your bank. If your report is taken down later, this page will say so.',
  },
  not_published: {
    heading: 'Not published',
    meaning: 'An operator checked your report and decided not to share it with member banks. This page does not give reasons.',
    next: 'If you have more details of the person, such as a phone or account number, you can file a new report. Reports that are not published are deleted after a time; this page then no longer finds it.',
  },
  withdrawn: {
    heading: 'Taken down',
    meaning: 'Your report was shared with member banks, then an operator took it down. Banks no longer see it.',
    next: 'This page does not give reasons. Reports that are taken down are deleted after a time; this page then no longer finds it.',
  },
};

const NOT_FOUND = "We can't find a report with that ID. Check you copied all of it.";

initStatusPage<StatusAnswer>({
  path: '/report',
  noun: 'report',
  title: "Your report's status — Redflag",
  form: byId('filing'),
  notFound: NOT_FOUND,
  words: (answer) => STATUS_IN_WORDS[answer.status],
  facts: (answer, id) => [
    ['Reference', answer.reference],
    ['Received', momentText(answer.receivedAt)],
    ...(answer.status === 'received' ? [] : [['Status changed', momentText(answer.updatedAt)] as [string, string]]),
    ['Report ID', id],
  ],
  read: (id) => api.GET('/api/v1/public/reports/{id}/status', { params: { path: { id } } }),
});
