// The status view of a public page, for the person who sent something: a public report at
// /report#status/<id> (decision 0129), a review request at /review#status/<id> (decision 0133).
// The id is only ever in the address's fragment, which the browser never sends: it reaches no
// server's log, as a path or a query would. The request that reads the status carries it in its
// path, to the service alone (the pages load nothing from anywhere else).
import { byId, factPairs, momentText, tell, waitInWords } from './common.js';
import { type StatusContact, showContactLine, showStatusContact } from './contact.js';

const STATUS_PREFIX = '#status/';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const WHOLE_UUID = new RegExp(`^${UUID.source}$`, 'i');

/** The fragment of a status view: `#status/<id>`. */
export function statusHash(id: string): string {
  return `${STATUS_PREFIX}${id.toLowerCase()}`;
}

export interface StatusWords {
  heading: string;
  meaning: string;
  next: string;
  /** The one way to our team said under `next` (contact.ts); "Something here looks wrong?" when none is given. */
  contact?: StatusContact;
}

const SHORT_REFERENCE = /^[0-9a-f]{4}-?[0-9a-f]{4}$/i;

/** The short reference (3F0C-2A1E) is what a person most often has instead of the id: said so, not "not found". */
function shortReference(noun: string): string {
  return `That is the short reference. We need the full ${noun} ID: 36 letters, digits and dashes.`;
}

export interface StatusPage<A extends { reference: string }> {
  /** The page's path (`/report`): the link to keep is this path with the fragment. */
  path: string;
  /** What was sent, in words: "report" or "request". */
  noun: string;
  /** The page's title while the status is shown. */
  title: string;
  /** The part of the page shown without a fragment (the form and its confirmation). */
  form: HTMLElement;
  /** The words for an id no one has: the service's 404, and anything that is not a whole id. */
  notFound: string;
  words(answer: A): StatusWords;
  /** The facts under the words, the id last. */
  facts(answer: A, id: string): [string, string][];
  read(id: string): Promise<{ data?: { data: A } | undefined; error?: unknown; response: Response }>;
}

const OFFLINE = "We couldn't reach Redflag. Check your internet connection, then try again.";
const FAILED = 'Something went wrong on our side. Please try again in a few minutes.';

/** Wires the view (its markup: `#status-page` and the elements named below) and shows what the address names. */
export function initStatusPage<A extends { reference: string }>(page: StatusPage<A>): void {
  const formTitle = document.title;
  const statusPage = byId('status-page');
  const statusLine = byId('status-loading');
  const result = byId('status-result');
  const problem = byId('status-problem');
  const retry = byId<HTMLButtonElement>('status-retry');
  const address = byId<HTMLTextAreaElement>('status-address');
  const copyMessage = byId('copy-message');
  let current = '';
  /** Each look-up's turn: an answer that comes after a newer look-up began is dropped. */
  let turn = 0;

  function showProblem(text: string, canRetry: boolean): void {
    statusLine.textContent = '';
    result.hidden = true;
    problem.hidden = false;
    byId('status-error').textContent = text;
    retry.hidden = !canRetry;
    void showContactLine(byId('status-problem-contact'));
  }

  function render(id: string, answer: A): void {
    const words = page.words(answer);
    // Said to a screen reader as it comes; seen as when the page last asked.
    const heard = Object.assign(document.createElement('span'), {
      className: 'visually-hidden',
      textContent: `: ${words.heading}`,
    });
    statusLine.replaceChildren(`Checked ${momentText(new Date().toISOString())}`, heard);
    byId('status-heading').textContent = words.heading;
    byId('status-meaning').textContent = words.meaning;
    byId('status-next').textContent = words.next;
    byId('status-facts').replaceChildren(...factPairs(page.facts(answer, id)));
    void showStatusContact(answer.reference, words.contact);
    address.value = `${location.origin}${page.path}${statusHash(id)}`;
    copyMessage.textContent = '';
    problem.hidden = true;
    result.hidden = false;
  }

  async function showStatus(id: string): Promise<void> {
    const mine = ++turn;
    current = id;
    result.hidden = true;
    problem.hidden = true;
    // Not an id at all, without asking: the short reference (a link written out by hand) said as
    // the paste box says it; half an id, in the same words as an id no one has.
    if (!WHOLE_UUID.test(id)) {
      showProblem(SHORT_REFERENCE.test(id) ? shortReference(page.noun) : page.notFound, false);
      return;
    }
    statusLine.textContent = `Checking your ${page.noun}…`;
    try {
      const { data, error, response } = await page.read(id);
      if (mine !== turn) return;
      if (data) render(id.toLowerCase(), data.data);
      else if (response.status === 404) showProblem(page.notFound, false);
      else if (response.status === 429)
        showProblem(
          `You have checked many times in a short while. Please wait ${waitInWords(error) ?? 'a minute'}, then try again.`,
          true,
        );
      else showProblem(FAILED, true);
    } catch {
      // fetch itself failed: no connection, or it dropped.
      if (mine === turn) showProblem(OFFLINE, true);
    }
  }

  /** The address names the view: the form (no fragment) or a status (#status/<id>). */
  function route(moveFocus: boolean): void {
    if (!location.hash.startsWith(STATUS_PREFIX)) {
      statusPage.hidden = true;
      page.form.hidden = false;
      document.title = formTitle;
      return;
    }
    let id = '';
    try {
      id = decodeURIComponent(location.hash.slice(STATUS_PREFIX.length)).trim();
    } catch {
      // Broken percent-encoding: no id, so "not found".
    }
    page.form.hidden = true;
    statusPage.hidden = false;
    document.title = page.title;
    if (moveFocus) byId('status-title').focus();
    void showStatus(id);
  }

  void showContactLine();
  window.addEventListener('hashchange', () => route(true));
  retry.addEventListener('click', () => void showStatus(current));

  byId('copy-address').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(address.value);
      tell(copyMessage, 'Link copied. Keep it somewhere safe, such as a note or a message to yourself.');
    } catch {
      // No clipboard here (an older browser, or permission refused): the link is selected to copy by hand.
      address.focus();
      address.select();
      tell(copyMessage, "The link is selected: copy it with your phone's Copy option, or Ctrl+C.", 'error');
    }
  });

  const pasted = byId<HTMLInputElement>('status-id');
  const pastedMessage = byId('status-form-message');
  byId<HTMLFormElement>('status-form').addEventListener('submit', (event) => {
    event.preventDefault();
    // The whole link pasted is fine too: the id is taken out of it.
    const text = pasted.value.trim();
    const id = UUID.exec(text)?.[0];
    if (!id) {
      pasted.setAttribute('aria-invalid', 'true');
      pastedMessage.textContent =
        text === ''
          ? `Paste the ${page.noun} ID first.`
          : SHORT_REFERENCE.test(text)
            ? shortReference(page.noun)
            : `That is not a full ${page.noun} ID: it has 36 letters, digits and dashes. Check you copied all of it.`;
      pasted.focus();
      return;
    }
    pasted.removeAttribute('aria-invalid');
    pastedMessage.textContent = '';
    pasted.value = '';
    if (location.hash === statusHash(id)) {
      byId('status-title').focus();
      void showStatus(id);
    } else location.hash = statusHash(id);
  });

  route(false);
}
