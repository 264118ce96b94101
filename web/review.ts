// The public page at /review: the person who believes they are wrongly listed asks the operators to
// look (decision 0122). No sign-in; the answer never says whether anything is listed.
import { api, byId, characterCount, LABELS, onSubmitOnce, publicFormAnswered, showFieldErrors } from './common.js';
import { identifierRow, missingBanks, readIdentifiers, wireAddIdentifier, withBankErrors } from './identifier-rows.js';

const form = byId<HTMLFormElement>('review-form');
const message = byId('form-message');
characterCount(byId<HTMLTextAreaElement>('statement'), byId('statement-count'), 50, 2000);

const rows = byId('identifiers');
rows.append(identifierRow(0, LABELS));
wireAddIdentifier(byId<HTMLButtonElement>('add-identifier'), rows, LABELS, undefined, 5);

const text = (id: string) => byId<HTMLInputElement>(id).value.trim();

onSubmitOnce(form, async () => {
  const noBank = missingBanks(rows);
  message.textContent = 'Sending…';
  const { data, error, response } = await api.POST('/api/v1/public/review-requests', {
    body: {
      name: byId<HTMLInputElement>('name').value,
      ...(text('email') ? { email: text('email') } : {}),
      ...(text('phone') ? { phone: text('phone') } : {}),
      identifiers: readIdentifiers(rows),
      statement: byId<HTMLTextAreaElement>('statement').value,
    },
  });
  if (publicFormAnswered(form, message, 'requests', data?.data.reference, response)) return;
  // Left empty, a field needs asking for, not its rules explained; filled, the service's words stand.
  showFieldErrors(form, withBankErrors(noBank, error), message, {
    ...(text('name') ? {} : { name: 'Give your name' }),
    ...(text('statement') ? {} : { statement: 'Tell us why the listing is wrong' }),
    identifiers: 'Give at least one of your details, such as your phone number or account number',
  });
});
