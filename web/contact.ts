// The operators' address for people outside Redflag (GET /api/v1/meta-data/contact), on the public
// pages: the scam victim and the person wrongly listed need a way to our team besides the forms,
// such as an answer that never came or a question about their data. Nothing is shown when the
// service has none, or when the address cannot be read: the pages work without it.
import { api, byId } from './common.js';

let asked: Promise<string | null> | undefined;

/** The address, asked once a page. */
export function operatorsContact(): Promise<string | null> {
  asked ??= api.GET('/api/v1/meta-data/contact').then(
    ({ data }) => data?.data.contact.email ?? null,
    () => null,
  );
  return asked;
}

/** A paragraph's words around a mailto link to the address. */
function writeTo(target: HTMLElement, before: string, email: string, after: string): void {
  const link = Object.assign(document.createElement('a'), { href: `mailto:${email}`, textContent: email });
  target.replaceChildren(before, link, after);
  target.hidden = false;
}

/**
 * Who to write to about Redflag or one's data: the form's own line (`#contact-line`), or under a
 * status that could not be shown (not found, offline), where a person most needs a way in.
 */
export async function showContactLine(target: HTMLElement = byId('contact-line')): Promise<void> {
  const email = await operatorsContact();
  if (email) writeTo(target, 'Questions about Redflag, or about what it holds about you? Write to our team at ', email, '.');
}

/**
 * The one way to our team a status gives: with an address, `ask` ("Something here looks
 * wrong?"), then write to it; without one, `otherwise` where the page has another way (the review
 * form), or nothing. One instruction, not two that disagree.
 */
export interface StatusContact {
  ask: string;
  otherwise?: (string | Node)[];
}

/** Under a status (`#status-contact`): the way to the team `words` give, quoting the reference. */
export async function showStatusContact(
  reference: string,
  words: StatusContact = { ask: 'Something here looks wrong?' },
): Promise<void> {
  const target = byId('status-contact');
  target.hidden = true;
  const email = await operatorsContact();
  if (email) writeTo(target, `${words.ask} Write to our team at `, email, `, and quote the reference ${reference}.`);
  else if (words.otherwise) {
    target.replaceChildren(...words.otherwise);
    target.hidden = false;
  }
}
