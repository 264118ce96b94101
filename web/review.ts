// The public page at /review: the person who believes they are wrongly listed asks the operators to
// look (decision 0122). No sign-in; the answer never says whether anything is listed.
// At /review#status/<id>, whether the operators have answered, for the person who asked (decision 0133).
import type { paths } from '../client/src/index.js';
import {
  api,
  byId,
  characterCount,
  dayText,
  detailsInWords,
  LABELS,
  momentText,
  notSent,
  onSubmitOnce,
  publicFormAnswered,
  showFieldErrors,
  tell,
} from './common.js';
import { identifierRow, missingBanks, readIdentifiers, wireAddIdentifier, withBankErrors } from './identifier-rows.js';
import { initStatusPage, type StatusWords, statusHash } from './status-page.js';

const form = byId<HTMLFormElement>('review-form');
const message = byId('form-message');
characterCount(byId<HTMLTextAreaElement>('statement'), byId('statement-count'), 50, 2000);

const rows = byId('identifiers');
rows.append(identifierRow(0, LABELS));
wireAddIdentifier(byId<HTMLButtonElement>('add-identifier'), rows, LABELS, undefined, 5);

const text = (id: string) => byId<HTMLInputElement>(id).value.trim();

onSubmitOnce(form, async () => {
  const noBank = missingBanks(rows);
  tell(message, 'Sending…', 'neutral');
  // Undefined when fetch itself failed (no connection, or it dropped): nothing reached us.
  const answer = await api
    .POST('/api/v1/public/review-requests', {
      body: {
        name: byId<HTMLInputElement>('name').value,
        ...(text('email') ? { email: text('email') } : {}),
        ...(text('phone') ? { phone: text('phone') } : {}),
        identifiers: readIdentifiers(rows),
        statement: byId<HTMLTextAreaElement>('statement').value,
      },
    })
    .catch(() => undefined);
  if (!answer) return notSent(message);
  const { data, error, response } = answer;
  if (data) byId<HTMLAnchorElement>('status-link').href = `/review${statusHash(data.data.id)}`;
  if (publicFormAnswered(form, message, 'requests', data?.data.reference, response)) return;
  const errors = withBankErrors(noBank, error);
  // Left empty, a field needs asking for, not its rules explained; filled, the service's words
  // stand, unless they are meant for integrators.
  showFieldErrors(form, errors, message, {
    ...detailsInWords(errors),
    ...(text('name') ? {} : { name: 'Give your name' }),
    ...(text('statement') ? {} : { statement: 'Tell us why the listing is wrong' }),
    identifiers: 'Give at least one of your details, such as your phone number or account number',
  });
});

// ---- The status page (decision 0133; the view is status-page.ts) ----
// The answer is waiting or answered, never what the operators found: anyone may ask about someone
// else's number, and the outcome would say whether it is listed.

type StatusAnswer =
  paths['/api/v1/public/review-requests/{id}/status']['get']['responses'][200]['content']['application/json']['data'];

/**
 * What each status means to the person who asked, and what they can do: only what the service
 * does. No time is promised (the service keeps none). An answer that never came is said once, under
 * `next`: write to the operators' address, or, when the service has none, ask again through the form.
 */
function inWords(answer: StatusAnswer): StatusWords {
  if (answer.status === 'waiting') {
    return {
      heading: 'Waiting for an answer',
      meaning: 'Our team has your request. They check the registry and answer you at the e-mail or phone you gave.',
      next: 'We cannot say exactly when they will answer. Come back to this page later: it says when they have answered you, but never what they found.',
    };
  }
  return {
    heading: 'Answered',
    meaning: `Our team marked your request as answered on ${dayText(answer.updatedAt)}: they answer at the e-mail or phone you gave. This page does not say what they found: that is in their answer to you.`,
    next: 'If their answer has not reached you and you gave an e-mail address, look in its spam or junk folder first. Answered requests are deleted after a time; this page then no longer finds it.',
    contact: {
      ask: 'Their answer did not reach you, or something here looks wrong?',
      otherwise: [
        'Their answer did not reach you? Send ',
        Object.assign(document.createElement('a'), { href: '/review', textContent: 'a new request' }),
        `, say that their answer did not reach you, and quote the reference ${answer.reference}.`,
      ],
    },
  };
}

const NOT_FOUND = "We can't find a request with that ID. Check you copied all of it. Answered requests are deleted after a time.";

initStatusPage<StatusAnswer>({
  path: '/review',
  noun: 'request',
  title: 'Your review request — Redflag',
  form: byId('asking'),
  notFound: NOT_FOUND,
  words: inWords,
  facts: (answer, id) => [
    ['Reference', answer.reference],
    ['Sent', momentText(answer.receivedAt)],
    ...(answer.status === 'answered' ? [['Answered', momentText(answer.updatedAt)] as [string, string]] : []),
    ['Request ID', id],
  ],
  read: (id) => api.GET('/api/v1/public/review-requests/{id}/status', { params: { path: { id } } }),
});
