// Shared by the desk and the public form: the typed client (session cookie, never a key) and small DOM helpers.
import { type ApiError, createRedflagClient, fieldErrors } from '../client/src/index.js';

export const api = createRedflagClient({ baseUrl: location.origin });

export const FRAUD_TYPES: [string, string][] = [
  ['romance_fraud', 'Romance scam'],
  ['social_engineering', 'Tricked into paying or sharing details'],
  ['identity_theft', 'Identity theft'],
  ['hacker', 'Hacked account'],
  ['theft', 'Theft'],
  ['fraudulent_loan', 'Fraudulent loan'],
  ['money_mule', 'Money mule'],
  ['land_property_scams', 'Land or property scam'],
  ['suspicious_pep', 'Suspicious politically exposed person'],
  ['sanctioned/ofac', 'Sanctioned (OFAC)'],
  ['other', 'Something else'],
];

export const LABELS: [string, string, string][] = [
  ['phone', 'Phone number', 'e.g. 0803 123 4567 or +234 803 123 4567'],
  ['account', 'Bank account', '10-digit account number; choose the bank'],
  ['email', 'E-mail address', 'e.g. name@example.com'],
  ['account_name', 'Account name', 'The name on the account'],
  ['social_handle', 'Social media handle', 'e.g. @username'],
  ['bvn', 'BVN', '11 digits'],
  ['nin', 'NIN', '11 digits'],
  ['drivers_license', "Driver's licence number", 'As printed on the licence'],
  ['international_passport', 'Passport number', 'e.g. A01234567'],
];

/** A fraud type as the form lists it ("Money mule"), not its code. */
export function fraudTypeName(code: string): string {
  return FRAUD_TYPES.find(([value]) => value === code)?.[1] ?? code.replace(/_/g, ' ');
}

/** An identifier's kind as the form lists it ("Bank account"), not its code. */
export function labelName(code: string): string {
  return LABELS.find(([value]) => value === code)?.[1] ?? code.replace(/_/g, ' ');
}

/** An identifier's kind inside a sentence ("a watched phone number", "a watched BVN"): acronyms keep their capitals. */
export function labelInSentence(code: string): string {
  const name = labelName(code);
  return /^[A-Z]{2,}\b/.test(name) ? name : name.charAt(0).toLowerCase() + name.slice(1);
}

/** "Bank account: 0010246780 at Access Bank" rather than the stored "0010246780_access-bank"; "@ada" for a handle. */
export function identifierText(label: string, value: string): string {
  // A handle is stored without its @ (so "@ada" and "ada" are one); a person writes it with one.
  if (label === 'social_handle' && /^[a-z0-9._-]{2,64}$/.test(value)) return `${labelName(label)}: @${value}`;
  const account = label === 'account' ? /^(\d{10})_(.+)$/.exec(value) : null;
  if (!account) return `${labelName(label)}: ${value}`;
  const slug = account[2] as string;
  return `${labelName(label)}: ${account[1]} at ${bankNames.get(slug) ?? slug}`;
}

/**
 * A day as every page writes it, "28 Nov 2026": the month in letters, so no one reads 03/04 as
 * the fourth of March or the third of April.
 */
export function dayText(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
}

/** A moment as the desk writes it everywhere: the day as dayText says it, then the time ("28 Nov 2026, 17:23"). */
export function momentText(iso: string): string {
  return `${dayText(iso)}, ${new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' })}`;
}

export function byId<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} missing`);
  return found as T;
}

export function option(value: string, text: string): HTMLOptionElement {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = text;
  return o;
}

/**
 * Writes a form's message line: green for what went well, red (the default style) for a failure,
 * the text's own colour for what is only under way ("Sending…"), which is neither.
 */
export function tell(target: HTMLElement, text: string, tone: 'ok' | 'error' | 'neutral' = 'ok'): void {
  target.textContent = text;
  target.dataset.tone = tone;
}

/**
 * The pairs of a `<dl class="facts">`, each term and value in its own `<div>` (valid in a `dl`), so
 * the grid places pairs, and a term never ends a row with its value on the next.
 */
export function factPairs(facts: [string, string | Node][]): HTMLElement[] {
  return facts.map(([term, value]) => {
    const pair = document.createElement('div');
    const dd = document.createElement('dd');
    dd.append(value);
    pair.append(Object.assign(document.createElement('dt'), { textContent: term }), dd);
    return pair;
  });
}

/**
 * An e-mail address that may break after its @ (a <wbr>, which copying leaves out) rather than
 * mid-word when its column is narrow ("ngozi@acme." over "ng").
 */
export function emailText(email: string): DocumentFragment {
  const at = email.lastIndexOf('@');
  const fragment = document.createDocumentFragment();
  if (at < 0) fragment.append(email);
  else fragment.append(email.slice(0, at + 1), document.createElement('wbr'), email.slice(at + 1));
  return fragment;
}

/** A phone number that wraps as a whole, never mid-number ("+23480987654" over "32" was misread). */
export function phoneText(phone: string): HTMLSpanElement {
  return Object.assign(document.createElement('span'), { className: 'phone', textContent: phone });
}

/** A small button in a table row, named for screen readers by what it acts on. */
export function actionButton(text: string, label: string, run: () => Promise<void>): HTMLButtonElement {
  const b = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'secondary cell-control',
    textContent: text,
  });
  b.setAttribute('aria-label', label);
  onClickOnce(b, run);
  return b;
}

/**
 * A text's length as the service counts it (trimmed-text.ts): characters that take no room do not
 * count, and blanks alone are nothing.
 */
export function countedLength(value: string): number {
  const text = value.trim();
  return text.replace(/[\s\p{Z}\p{Cc}\p{Cf}]/gu, '') === '' ? 0 : [...text.replace(/[^\P{Cc}\t\n\r]|\p{Cf}/gu, '')].length;
}

/** Live "n / max characters" under a text area, with its limits in words. */
export function characterCount(area: HTMLTextAreaElement, out: HTMLElement, min: number, max: number): void {
  const update = () => {
    const n = countedLength(area.value);
    out.textContent =
      n < min
        ? `${n} characters — at least ${min - n} more needed`
        : `${n.toLocaleString('en-GB')} of ${max.toLocaleString('en-GB')} characters`;
    // Not in the error colour before anything is typed: an empty box has not done anything wrong yet.
    out.classList.toggle('warn', (n > 0 && n < min) || n > max);
  };
  area.addEventListener('input', update);
  update();
}

/**
 * A value shown once, brought back into sight and focus after the list above it was drawn again:
 * focus alone does not scroll a field that already has it, and the longer list had pushed it down.
 */
export function showAgain(id: string): void {
  const field = byId(id);
  field.focus({ preventScroll: true });
  field.scrollIntoView({ block: 'center' });
}

/**
 * A public form's answer when it is not a list of field errors: received (the form makes way for
 * the thank-you with its reference, which takes the keyboard) or the hourly limit reached (said
 * in words, with what was typed kept). True when it said something.
 */
export function publicFormAnswered(
  form: HTMLElement,
  message: HTMLElement,
  what: 'reports' | 'requests',
  reference: string | undefined,
  response: Response,
): boolean {
  if (reference !== undefined) {
    form.hidden = true;
    byId('reference').textContent = reference;
    byId('done').hidden = false;
    byId('done').focus();
    return true;
  }
  if (response.status !== 429) return false;
  const minutes = Math.ceil(Number(response.headers.get('retry-after') ?? 3600) / 60);
  tell(
    message,
    `We have received several ${what} from your connection in the last hour, which is our limit to stop abuse. Your details are still on this page: please try again in about ${minutes} minutes.`,
    'error',
  );
  return true;
}

/**
 * A public form's request that never reached the service (no connection, or it dropped on the way:
 * fetch itself failed). Said in the status pages' words and brought into sight; what was typed
 * stays, and the button works again.
 */
export function notSent(message: HTMLElement): void {
  tell(
    message,
    "We couldn't reach Redflag, so nothing was sent. Check your internet connection, then press Send again.",
    'error',
  );
  // Brought into sight, the focus left where it is (on Send): the message is a live region and is
  // read out as it changes, so moving the focus onto it too had a screen reader say it twice.
  message.scrollIntoView({ block: 'nearest' });
  // Not busy any more (the submit handler would say so only after this): some screen readers hold a
  // live region's news while the form around it is busy, and it is now the only cue.
  message.closest('form')?.removeAttribute('aria-busy');
}

/** A report form's errors in a person's words where the server's would be codes or list sizes. */
export const REPORT_FORM_IN_WORDS = {
  fraudType: 'Choose the kind of fraud from the list',
  identifiers: 'Give at least one detail of the suspect, such as a phone number or an account number',
};

/**
 * The service's words for a detail that are meant for integrators (NUBAN, check digits, ASCII),
 * and what a person on a public form should check instead. The service's own messages stay as
 * they are: other clients read them.
 */
const DETAIL_IN_WORDS: [RegExp, (match: RegExpExecArray) => string][] = [
  [
    /^Account number is not a valid NUBAN for (.+) \(its check digit does not match\)$/i,
    (match) => `This account number does not match ${match[1]}. Check the 10 digits and the bank.`,
  ],
  [/^Account number must be 10 digits/i, () => 'An account number has 10 digits.'],
  [
    /^E-mail address (may contain only ASCII|must contain exactly one @|has an invalid)/i,
    () => 'Check the e-mail address: it looks incomplete or has spaces.',
  ],
];

/**
 * Each field error of `error` that the service words for integrators, in a person's words, keyed
 * by field (as `showFieldErrors`'s `plain`): a public form's other words go after it, and win.
 */
export function detailsInWords(error: unknown): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrors(error))) {
    for (const [pattern, words] of DETAIL_IN_WORDS) {
      const match = pattern.exec(message);
      if (match) {
        plain[field] = words(match);
        break;
      }
    }
  }
  return plain;
}

/**
 * A form whose request goes once at a time: a second press of Enter or of its button while the
 * first is on its way does nothing (it filed the same report twice). The page never navigates.
 */
export function onSubmitOnce(form: HTMLFormElement, handler: (event: SubmitEvent) => Promise<unknown>): void {
  let busy = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (busy) return;
    busy = true;
    form.setAttribute('aria-busy', 'true');
    // Through a promise, so a handler that throws at once still frees the form.
    void Promise.resolve()
      .then(() => handler(event as SubmitEvent))
      .finally(() => {
        busy = false;
        form.removeAttribute('aria-busy');
      });
  });
}

/**
 * A button whose action goes once at a time, as `onSubmitOnce`. When the action redraws a list and
 * takes the button with it, the keyboard carries on at the same row (or the one before, when the row
 * went), not at the top of the page.
 */
export function onClickOnce(button: HTMLElement, handler: () => Promise<unknown>): void {
  let busy = false;
  button.addEventListener('click', () => {
    if (busy) return;
    busy = true;
    const list = button.closest('tbody, ul, ol');
    const item = button.closest('tr, li');
    const at = list && item ? [...list.children].indexOf(item) : -1;
    // Which of the item's buttons it was: after "Pause" the keyboard is on "Resume", not the first button.
    const nth = item ? [...item.querySelectorAll('button')].indexOf(button as HTMLButtonElement) : 0;
    // The page's heading: a table's scrolling box is a section too, without one.
    let section = button.closest('section');
    while (section && !section.querySelector(':scope > h1')) section = section.parentElement?.closest('section') ?? null;
    const heading = section?.querySelector<HTMLElement>(':scope > h1');
    void Promise.resolve()
      .then(handler)
      .finally(() => {
        busy = false;
        if (button.isConnected || (document.activeElement && document.activeElement !== document.body)) return;
        const near = list?.isConnected ? list.children[Math.min(at, list.children.length - 1)] : undefined;
        const buttons = near ? [...near.querySelectorAll<HTMLElement>('button')] : [];
        const next = buttons[Math.min(Math.max(nth, 0), buttons.length - 1)] ?? heading;
        if (next && next === heading) next.tabIndex = -1;
        next?.focus();
      });
  });
}

/** Removes the field errors an earlier answer placed in the form. */
export function clearFieldErrors(form: HTMLElement): void {
  for (const old of form.querySelectorAll('.field-error')) old.remove();
  for (const input of form.querySelectorAll('[aria-invalid]')) clearFieldError(form, input);
}

/** One field's mark and the error notes it is described by (found in its own form: ids repeat across the desk's forms). */
function clearFieldError(form: HTMLElement, field: Element): void {
  const ids = (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
  for (const id of ids.filter((id) => id.startsWith('err-'))) form.querySelector(`#${CSS.escape(id)}`)?.remove();
  field.removeAttribute('aria-invalid');
  const kept = ids.filter((id) => !id.startsWith('err-')).join(' ');
  if (kept) field.setAttribute('aria-describedby', kept);
  else field.removeAttribute('aria-describedby');
}

const clearsOnEdit = new WeakSet<HTMLElement>();
/** Each form's message line, where showFieldErrors said "Please correct the marked fields". */
const formMessages = new WeakMap<HTMLElement, HTMLElement>();
const CORRECT_THE_MARKED = 'Please correct the marked fields.';

/**
 * A marked field loses its error as soon as the person edits it: left up, "Write the amount in
 * digits only" stood beside the amount just corrected until the form was sent again. A radio
 * button clears the mark of its group's fieldset.
 */
function clearOnEdit(form: HTMLElement): void {
  if (clearsOnEdit.has(form)) return;
  clearsOnEdit.add(form);
  const edited = (event: Event) => {
    const field = (event.target as Element | null)?.closest('[aria-invalid]');
    if (!field || !form.contains(field)) return;
    clearFieldError(form, field);
    // The last marked field corrected, and nothing else was said: nothing is left to correct.
    const message = formMessages.get(form);
    if (message?.textContent?.trim() === CORRECT_THE_MARKED && !form.querySelector('[aria-invalid]')) message.textContent = '';
  };
  form.addEventListener('input', edited);
  form.addEventListener('change', edited);
}

/** A form's request went through: the errors of an earlier try go, and `text` says what happened. */
export function showDone(form: HTMLElement, message: HTMLElement, text: string): void {
  clearFieldErrors(form);
  message.dataset.tone = 'ok';
  message.textContent = text;
}

/**
 * Clears earlier messages, then shows each server field error beside its field (`[data-field]`);
 * `plain` says a field's error in a person's words where the server's would be codes (`fraudType`).
 */
export function showFieldErrors(
  form: HTMLElement,
  error: unknown,
  fallback: HTMLElement,
  plain: Record<string, string> = {},
): void {
  clearFieldErrors(form);
  clearOnEdit(form);
  formMessages.set(form, fallback);
  const errors = fieldErrors(error);
  let first: HTMLElement | null = null;
  let unplaced = '';
  for (const [field, message] of Object.entries(errors)) {
    // A list's own error (`identifiers`: none given) goes beside its first entry's field.
    const target =
      form.querySelector<HTMLElement>(`[data-field="${CSS.escape(field)}"]`) ??
      form.querySelector<HTMLElement>(`[data-field^="${CSS.escape(`${field}/`)}"]`);
    if (!target) {
      unplaced += `${field}: ${message}. `;
      continue;
    }
    const note = document.createElement('p');
    note.className = 'field-error';
    note.id = `err-${field.replace(/[^a-z0-9]/gi, '-')}`;
    // Alone under its field, a service message ("must be …", named after the field in the API) reads
    // as a sentence.
    const text = plain[field] ?? message;
    note.textContent = text.charAt(0).toUpperCase() + text.slice(1);
    target.setAttribute('aria-invalid', 'true');
    // Added to the field's hint and counter, not in their place.
    target.setAttribute('aria-describedby', `${target.getAttribute('aria-describedby') ?? ''} ${note.id}`.trim());
    target.insertAdjacentElement('afterend', note);
    first ??= target;
  }
  const message = (error as Partial<ApiError> | undefined)?.message ?? 'Something went wrong. Please try again.';
  fallback.dataset.tone = 'error';
  fallback.textContent = Object.keys(errors).length ? `${CORRECT_THE_MARKED} ${unplaced}` : message;
  // The first marked field down the page, where a person starts correcting (the service's order is its own).
  (form.querySelector<HTMLElement>('[aria-invalid="true"]') ?? first)?.focus();
}

/** The bank list, fetched once a page: every picker fills from it, and `identifierText` names banks by it. */
let banks: Promise<{ name: string; slug: string }[]> | undefined;
const bankNames = new Map<string, string>();
function bankList(): Promise<{ name: string; slug: string }[]> {
  banks ??= api.GET('/api/v1/meta-data/banks').then(({ data }) => {
    const list = data?.data.entity ?? [];
    // A failed fetch is tried again by the next picker rather than remembered.
    if (list.length === 0) banks = undefined;
    for (const bank of list) bankNames.set(bank.slug, bank.name);
    return list;
  });
  return banks;
}

export async function loadBanks(
  select: HTMLSelectElement,
  optionValue: (b: { name: string; slug: string }) => string,
): Promise<void> {
  for (const bank of await bankList()) select.append(option(optionValue(bank), bank.name));
}

/**
 * Where the reader goes on after a button changed the page under it: after a page of a list is
 * turned, the count above it ("page 2 of 5"); after values are revealed, the values. The button
 * pressed may just have been disabled or hidden, and focus on it would fall to the body.
 */
export function readFrom(target: HTMLElement): void {
  target.tabIndex = -1;
  target.focus();
}

/**
 * An opened item's title takes the keyboard at the top of the screen, the item under it: focus on
 * the whole panel scrolled its title out of sight, and focus alone on the title only scrolls until
 * it is in sight, which left it at the bottom edge on a phone.
 */
export function readFromTitle(title: HTMLElement): void {
  title.tabIndex = -1;
  title.focus({ preventScroll: true });
  title.scrollIntoView({ block: 'start' });
}

/**
 * A wait the service asked for (`data.retryAfter`, seconds) in words a person plans by: "about 15
 * minutes", not "894 s". Undefined when the answer named none.
 */
export function waitInWords(error: unknown): string | undefined {
  const seconds = (error as { data?: { retryAfter?: number } } | undefined)?.data?.retryAfter;
  if (typeof seconds !== 'number') return undefined;
  if (seconds < 90) return 'a minute';
  return `about ${Math.ceil(seconds / 60)} minutes`;
}

/**
 * Evidence files as list items of download links. The service sends each file as a download (never
 * shown in the desk's own origin), so the link says so; signed, it works for minutes.
 */
export function evidenceItems(urls: readonly string[]): HTMLLIElement[] {
  return urls.map((url, i) => {
    const li = document.createElement('li');
    li.append(
      Object.assign(document.createElement('a'), { href: url, textContent: `Download evidence file ${i + 1} of ${urls.length}` }),
    );
    return li;
  });
}

/**
 * A list's "Previous page" and "Next page": `turn` sets the page and loads it; the reader then goes
 * on from the count above the list (readFrom), whichever button was pressed.
 */
export function pageButtons(
  previous: HTMLElement,
  next: HTMLElement,
  count: HTMLElement,
  state: { page: () => number; turn: (page: number) => Promise<void> },
): void {
  const turnTo = async (page: number) => {
    await state.turn(page);
    readFrom(count);
  };
  previous.addEventListener('click', () => void turnTo(Math.max(1, state.page() - 1)));
  next.addEventListener('click', () => void turnTo(state.page() + 1));
}

/**
 * A list paged newest first, with "Newer" and "Older" under it (ids `<name>-previous`, `<name>-next`,
 * in a `<name>-pages` box hidden while there is one page) and a count line `<name>-count` the reader
 * goes on from. `load` draws the page `page()` names and then calls `shown` with how many there are.
 */
export function newerOlder(name: string, load: () => Promise<void>) {
  let page = 1;
  const previous = byId<HTMLButtonElement>(`${name}-previous`);
  const next = byId<HTMLButtonElement>(`${name}-next`);
  pageButtons(previous, next, byId(`${name}-count`), {
    page: () => page,
    turn: (to) => {
      page = to;
      return load();
    },
  });
  return {
    page: () => page,
    /** A page opened from the menu starts at the newest. */
    reset: () => {
      page = 1;
    },
    /** ' · page 2 of 3' for the count line, or '' when there is one page; the buttons set to match. */
    shown(total: number, perPage: number): string {
      const pages = Math.max(1, Math.ceil(total / perPage));
      byId(`${name}-pages`).hidden = pages <= 1;
      previous.disabled = page <= 1;
      next.disabled = page >= pages;
      return pages > 1 ? ` · page ${page} of ${pages}` : '';
    },
  };
}
export type NewerOlder = ReturnType<typeof newerOlder>;

/** Another page of the desk runs the search (desk.ts listens): the search page, filled in and sent. */
export function searchButton(label: string, value: string): HTMLButtonElement {
  const button = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'secondary cell-control match-search',
    textContent: 'Search',
  });
  button.setAttribute('aria-label', `Search ${identifierText(label, value)}`);
  button.addEventListener('click', () => {
    document.dispatchEvent(new CustomEvent('desk:search', { detail: { label, value } }));
  });
  return button;
}
