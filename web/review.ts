// The public page at /review: the person who believes they are wrongly listed asks the operators to
// look (decision 0122). No sign-in; the answer never says whether anything is listed.
import { api, byId, characterCount, LABELS, onSubmitOnce, showFieldErrors } from './common.js';
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
  if (data) {
    form.hidden = true;
    byId('reference').textContent = data.data.reference;
    byId('done').hidden = false;
    byId('done').focus();
    return;
  }
  if (response.status === 429) {
    const minutes = Math.ceil(Number(response.headers.get('retry-after') ?? 3600) / 60);
    message.textContent = `We have received several requests from your connection in the last hour, which is our limit to stop abuse. Your details are still on this page: please try again in about ${minutes} minutes.`;
    return;
  }
  // Left empty, a field needs asking for, not its rules explained; filled, the service's words stand.
  showFieldErrors(form, withBankErrors(noBank, error), message, {
    ...(text('name') ? {} : { name: 'Give your name' }),
    ...(text('statement') ? {} : { statement: 'Tell us why the listing is wrong' }),
    identifiers: 'Give at least one of your details, such as your phone number or account number',
  });
});
