// The desk at /: sign-in with the second factor, search, file a report. Talks to the service only through the typed client.

import { initAccount, loadAccount } from './account.js';
import {
  api,
  byId,
  characterCount,
  clearFieldErrors,
  FRAUD_TYPES,
  LABELS,
  loadBanks,
  onClickOnce,
  onSubmitOnce,
  option,
  REPORT_FORM_IN_WORDS,
  showDone,
  showFieldErrors,
  tell,
  waitInWords,
} from './common.js';
import { initCompanies, loadCompanies, loadSafelist } from './companies.js';
import { initDisputes, loadDisputes, startDispute } from './disputes.js';
import { EvidenceList } from './evidence.js';
import {
  identifierRow,
  missingBanks,
  readIdentifiers,
  resetIdentifierRows,
  wireAddIdentifier,
  withBankErrors,
} from './identifier-rows.js';
import { initKeys, loadKeys } from './keys.js';
import { checkLink, describeLink, LINK_ENDED, type LinkKind } from './link-check.js';
import { initModeration, loadQueue } from './moderation.js';
import { initPeople, loadPeople } from './people.js';
import { qrCode } from './qr.js';
import { initReviews, loadReviews } from './reviews.js';
import { initScreening, loadScreenings } from './screening.js';
import { renderSearchResult } from './search-result.js';
import { initSubmissions, loadSubmissions } from './submissions.js';
import { initTeam, loadAudit, loadTeam } from './team.js';
import { viewer } from './viewer.js';
import { initWatchlist, openWatchlist } from './watchlist.js';
import { initWebhooks, loadWebhooks } from './webhooks.js';

// Each page and what it loads when opened.
const LOADERS = {
  search: undefined,
  account: loadAccount,
  file: undefined,
  submissions: loadSubmissions,
  moderation: loadQueue,
  reviews: loadReviews,
  disputes: loadDisputes,
  watchlist: openWatchlist,
  screening: loadScreenings,
  team: loadTeam,
  keys: loadKeys,
  webhooks: loadWebhooks,
  audit: loadAudit,
  companies: loadCompanies,
  people: loadPeople,
  safelist: loadSafelist,
} satisfies Record<string, (() => Promise<void>) | undefined>;
/** The pages before sign-in: no menu. */
const SIGNED_OUT_VIEWS = ['sign-in', 'forgot', 'reset', 'accept', 'enrol'] as const;
const VIEWS = [...SIGNED_OUT_VIEWS, ...(Object.keys(LOADERS) as (keyof typeof LOADERS)[])] as const;
type View = (typeof VIEWS)[number];
const notice = byId('notice');

function show(view: View): void {
  for (const v of VIEWS) byId(`view-${v}`).hidden = v !== view;
  // The tab, the history list and a screen reader's window list name the page, not only the desk.
  document.title = `${byId(`view-${view}`).querySelector('h1')?.textContent?.trim() || 'Redflag'} — Redflag desk`;
  byId('nav').hidden = (SIGNED_OUT_VIEWS as readonly string[]).includes(view);
  // The page shown is marked in the menu, for screen readers as for the eye.
  for (const button of document.querySelectorAll<HTMLElement>('[data-view]')) {
    if (button.dataset.view === view) {
      button.setAttribute('aria-current', 'page');
      // On a phone the menu scrolls sideways: the page shown stays in sight in it.
      if (button.getClientRects().length > 0) button.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    } else button.removeAttribute('aria-current');
  }
  // Focus goes into the page: its first field shown that takes typing (not a read-only address), or
  // its heading when it has none, or when the field comes after the page's list (Team's invite form
  // under the table: focus there scrolled past the heading and the people it lists).
  const page = byId(`view-${view}`);
  const heading = page.querySelector<HTMLElement>('h1');
  if (heading) heading.tabIndex = -1;
  const field = [...page.querySelectorAll<HTMLInputElement>('input, select, textarea')].find(
    (el) => el.getClientRects().length > 0 && !el.readOnly,
  );
  const list = page.querySelector('table, ol, ul');
  const fieldFirst = field && (!list || list.compareDocumentPosition(field) & Node.DOCUMENT_POSITION_PRECEDING);
  (fieldFirst ? field : (heading ?? field))?.focus();
}

/**
 * The end of a session loads the desk afresh, saying why: every page keeps what it showed (a search,
 * revealed values, a dispute), and the next person to sign in on this computer, maybe of another
 * company, must not find it. The reason crosses the reload in this tab's session storage.
 */
const NOTICE_KEY = 'redflag-notice';
function endSession(reason: string): void {
  try {
    sessionStorage.setItem(NOTICE_KEY, reason);
  } catch {
    // Storage blocked: the reload still empties the desk; only the reason is not said.
  }
  location.replace('/');
}

// Any 401 after sign-in means the session ended (idle, signed out elsewhere): back to the sign-in form, saying why.
api.use({
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/api/v1/auth/')) {
      endSession('Your session has ended. Please sign in again.');
    }
    return response;
  },
});

/** Company users file and manage reports; operator users moderate; a company admin also runs the team. Each sees only their own pages. */
function setSide(user: { id: string; companyId: string | null; role: string }, member: { name: string }): void {
  byId('member-name').textContent = member.name;
  viewer.userId = user.id;
  viewer.companyId = user.companyId;
  viewer.role = user.role;
  document.body.dataset.side = user.companyId ? 'company' : 'operator';
  document.body.dataset.role = user.role;
}

/**
 * An invite link (`/invitations/accept?token=…`) or a link to choose a new password
 * (`/password-reset?token=…`): the token is kept in memory only and taken out of the address bar
 * and the history at once, so it is not left behind on a shared computer.
 */
let invitationToken = '';
let resetToken = '';

/**
 * A link opened is checked first (decision 0134): one that works opens its form, saying whom it is
 * for; one that no longer works opens no form but says what to do instead; when the check itself
 * fails, the form opens as written and its answer will tell.
 */
async function openLink(kind: LinkKind, token: string): Promise<void> {
  notice.textContent = 'Checking your link…';
  const checked = await checkLink(token);
  notice.textContent = '';
  if (checked.state === 'ended') return linkEnded(kind);
  // A working link opens the page of what it is for, whichever address it came by.
  const purpose = checked.state === 'works' ? checked.link.purpose : kind;
  if (purpose === 'invitation') invitationToken = token;
  else resetToken = token;
  describeLink(purpose, checked.state === 'works' ? checked.link : undefined);
  show(purpose === 'invitation' ? 'accept' : 'reset');
}

/** A link that no longer works, found on opening it or on sending its form: what can be done instead. */
function linkEnded(kind: LinkKind): void {
  invitationToken = '';
  resetToken = '';
  byId<HTMLInputElement>('accept-password').value = '';
  byId<HTMLInputElement>('reset-password').value = '';
  notice.textContent = LINK_ENDED[kind];
  show(kind === 'invitation' ? 'sign-in' : 'forgot');
}

async function start(): Promise<void> {
  try {
    notice.textContent = sessionStorage.getItem(NOTICE_KEY) ?? '';
    sessionStorage.removeItem(NOTICE_KEY);
  } catch {
    // Storage blocked: nothing to say.
  }
  if (location.pathname === '/invitations/accept') {
    const token = new URLSearchParams(location.search).get('token') ?? '';
    history.replaceState(null, '', '/');
    if (token) return openLink('invitation', token);
    notice.textContent = 'This invitation link is incomplete. Ask your administrator for a new one.';
  }
  if (location.pathname === '/password-reset') {
    const token = new URLSearchParams(location.search).get('token') ?? '';
    history.replaceState(null, '', '/');
    if (token) return openLink('password_reset', token);
    notice.textContent = 'This link is incomplete. Ask for a new one below, or ask your administrator.';
    return show('forgot');
  }
  const { data } = await api.GET('/api/v1/auth/me');
  if (!data) return show('sign-in');
  setSide(data.data.user, data.data.member);
  enrolmentRequired = data.data.totpEnrolmentRequired;
  if (enrolmentRequired) return enrol();
  openFirstPage();
}

/** The machine code of a failed answer (`data.code`), if it has one. */
const errorCode = (error: unknown) => (error as { data?: { code?: string } } | undefined)?.data?.code;

// Sign-in: e-mail and password, then the code when the service asks for it.
onSubmitOnce(byId<HTMLFormElement>('sign-in-form'), async (event) => {
  event.preventDefault();
  const totp = byId<HTMLInputElement>('totp').value.trim();
  const chosen = document.querySelector<HTMLInputElement>('input[name="member"]:checked');
  // The "with the code" choice has no member of its own: the code says which account.
  const memberId = chosen?.value || undefined;
  // Asked which member, the person answers: none is chosen for them.
  if (!byId('member-box').hidden && !chosen) {
    tell(byId('sign-in-message'), 'Choose the member you are signing in to.', 'error');
    document.querySelector<HTMLInputElement>('input[name="member"]')?.focus();
    return;
  }
  const { data, error } = await api.POST('/api/v1/auth/sign-in', {
    body: {
      email: byId<HTMLInputElement>('email').value,
      password: byId<HTMLInputElement>('password').value,
      ...(totp ? { totp } : {}),
      ...(memberId ? { memberId } : {}),
    },
  });
  const form = byId('sign-in-form');
  if (data) {
    setSide(data.data.user, data.data.member);
    notice.textContent = '';
    byId<HTMLInputElement>('password').value = '';
    byId<HTMLInputElement>('totp').value = '';
    forgetMemberChoice();
    enrolmentRequired = data.data.totpEnrolmentRequired;
    return enrolmentRequired ? enrol() : openFirstPage();
  }
  const code = errorCode(error);
  if (code === 'MEMBER_CHOICE_REQUIRED') {
    offerMembers((error as { data: { members?: MemberChoice[] } }).data.members ?? []);
    // A question, not a failure: said in the page's ordinary tone.
    tell(byId('sign-in-message'), 'Choose the member, then sign in again.');
    return;
  }
  if (code === 'RATE_LIMITED') {
    tell(
      byId('sign-in-message'),
      `Too many sign-ins failed for this address. To protect the account, please wait ${waitInWords(error) ?? 'a while'} and try again.`,
      'error',
    );
    return;
  }
  if (code === 'TOTP_REQUIRED') {
    byId('totp-box').hidden = false;
    // Members the password alone opens are offered beside the code (a person may work at one
    // without having the authenticator of another).
    const open = (error as { data: { members?: MemberChoice[] } }).data.members ?? [];
    if (open.length > 0 && byId('member-box').hidden) {
      offerMembers(open, true);
      tell(byId('sign-in-message'), 'Choose the member; for one whose account has a second factor, enter its code.');
      return;
    }
    tell(byId('sign-in-message'), 'Enter the code from your authenticator app.');
    byId('totp').focus();
    return;
  }
  showFieldErrors(form, error, byId('sign-in-message'));
});

// An address with accounts at several members: the service names those the password opened
// (decision 0121); the person picks one. A new address or password asks afresh.
interface MemberChoice {
  memberId: string;
  name: string;
}

/** `withCode`: one more choice, a member not named whose account the code opens. */
function offerMembers(members: MemberChoice[], withCode = false): void {
  const choice = (value: string, name: string) => {
    const label = document.createElement('label');
    label.className = 'choice';
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'member';
    radio.value = value;
    label.append(radio, ` ${name}`);
    return label;
  };
  const choices = byId('member-choices');
  choices.replaceChildren(
    ...members.map((member) => choice(member.memberId, member.name)),
    ...(withCode ? [choice('', 'Another member, with the code from my authenticator app')] : []),
  );
  byId('member-box').hidden = false;
  choices.querySelector<HTMLInputElement>('input')?.focus();
}

function forgetMemberChoice(): void {
  byId('member-choices').replaceChildren();
  byId('member-box').hidden = true;
}

for (const id of ['email', 'password']) byId(id).addEventListener('input', forgetMemberChoice);

// Accepting an invitation: the name and password chosen here, then the usual sign-in.
onSubmitOnce(byId<HTMLFormElement>('accept-form'), async (event) => {
  event.preventDefault();
  const { data, error } = await api.POST('/api/v1/auth/invitations/accept', {
    body: {
      token: invitationToken,
      name: byId<HTMLInputElement>('accept-name').value,
      password: byId<HTMLInputElement>('accept-password').value,
    },
  });
  // Used, expired or replaced since it was opened: the form cannot help; say what can.
  if (errorCode(error) === 'INVITATION_INVALID') return linkEnded('invitation');
  if (!data) return showFieldErrors(byId('accept-form'), error, byId('accept-message'));
  invitationToken = '';
  byId<HTMLInputElement>('accept-password').value = '';
  byId<HTMLInputElement>('email').value = data.data.user.email;
  notice.textContent = 'You have joined. Sign in with your e-mail address and the password you chose.';
  show('sign-in');
  byId('password').focus();
});

// Forgot the password: a link by e-mail, where the service sends e-mail; else the administrator's.
byId('forgot-open').addEventListener('click', () => {
  byId<HTMLInputElement>('forgot-email').value = byId<HTMLInputElement>('email').value;
  notice.textContent = '';
  show('forgot');
});
byId('forgot-back').addEventListener('click', () => show('sign-in'));
onSubmitOnce(byId<HTMLFormElement>('forgot-form'), async (event) => {
  event.preventDefault();
  const message = byId('forgot-message');
  const { data, error } = await api.POST('/api/v1/auth/password-reset', {
    body: { email: byId<HTMLInputElement>('forgot-email').value },
  });
  if (!data) return showFieldErrors(byId('forgot-form'), error, message);
  showDone(
    byId('forgot-form'),
    message,
    data.data.mailed
      ? 'If an active account uses this address, we e-mail it a link to choose a new password (one every few minutes at most). The link works once, for a limited time. Look in your spam folder if it does not come.'
      : 'This service does not send e-mail. Ask an administrator of your member (or the Redflag operators) to send you a link.',
  );
});

// A link to choose a new password: the password, then the usual sign-in.
onSubmitOnce(byId<HTMLFormElement>('reset-form'), async (event) => {
  event.preventDefault();
  const { data, error } = await api.POST('/api/v1/auth/password-reset/accept', {
    body: { token: resetToken, password: byId<HTMLInputElement>('reset-password').value },
  });
  if (errorCode(error) === 'LINK_INVALID') return linkEnded('password_reset');
  if (!data) return showFieldErrors(byId('reset-form'), error, byId('reset-message'));
  resetToken = '';
  byId<HTMLInputElement>('reset-password').value = '';
  byId<HTMLInputElement>('email').value = data.data.user.email;
  notice.textContent = 'Your new password is set. Sign in with it.';
  show('sign-in');
  byId('password').focus();
});

/** Whether the person must set up a second factor before anything else (else it is their choice, from their account). */
let enrolmentRequired = false;

async function enrol(): Promise<void> {
  // A fresh start each time: the form, not the codes of an earlier enrolment.
  byId('enrol-setup').hidden = false;
  byId('recovery').hidden = true;
  byId('recovery-codes').replaceChildren();
  byId<HTMLInputElement>('enrol-code').value = '';
  byId('enrol-message').textContent = '';
  byId('enrol-leave').textContent = enrolmentRequired ? 'Not now: sign out' : 'Not now: back to your account';
  show('enrol');
  const { data, error } = await api.POST('/api/v1/auth/totp');
  if (!data) {
    byId('enrol-message').textContent = error?.message ?? 'Could not start enrolment.';
    return;
  }
  // Scanned from the screen; the key and the link below it are for whoever cannot scan.
  byId('totp-qr').replaceChildren(qrCode(data.data.otpauthUrl, 'QR code for your authenticator app'));
  byId('totp-secret').textContent = data.data.secret;
  byId<HTMLAnchorElement>('totp-link').href = data.data.otpauthUrl;
}

onSubmitOnce(byId<HTMLFormElement>('enrol-form'), async (event) => {
  event.preventDefault();
  const { data, error } = await api.POST('/api/v1/auth/totp/confirm', {
    body: { code: byId<HTMLInputElement>('enrol-code').value.trim() },
  });
  if (!data) return showFieldErrors(byId('enrol-form'), error, byId('enrol-message'));
  // The key leaves the screen once it is in the app; the codes take its place.
  byId('enrol-setup').hidden = true;
  byId('totp-qr').replaceChildren();
  byId('totp-secret').textContent = '';
  enrolmentRequired = false;
  const list = byId('recovery-codes');
  for (const code of data.data.recoveryCodes) list.append(Object.assign(document.createElement('li'), { textContent: code }));
  byId('recovery').hidden = false;
  byId('enrol-done').focus();
});
byId('enrol-done').addEventListener('click', () => openFirstPage());
// Without the phone at hand: out of the desk (when the second factor is required), or back to the account page.
onClickOnce(byId('enrol-leave'), async () => {
  byId('totp-qr').replaceChildren();
  byId('totp-secret').textContent = '';
  if (enrolmentRequired)
    return signOut('/api/v1/auth/sign-out', 'You have signed out. Set up your second factor when your phone is at hand.');
  open('account');
});

/** Signs out on the service first: the desk is emptied only once the session is really over. */
async function signOut(path: '/api/v1/auth/sign-out' | '/api/v1/auth/sign-out-everywhere', reason: string): Promise<void> {
  const ended = await api.POST(path).then(
    ({ response }) => response.ok || response.status === 401,
    () => false,
  );
  if (ended) return endSession(reason);
  notice.textContent = 'Signing out did not work: you are still signed in. Please try again.';
}
onClickOnce(byId('sign-out'), () => signOut('/api/v1/auth/sign-out', 'You have signed out.'));
/**
 * A page opened from the menu starts clean: the outcome of what was done there before ("Published.",
 * a reference, a field error) and the panels opened then (a report, a dispute, a key or secret shown
 * once) were about that moment, not this one.
 */
type Page = keyof typeof LOADERS;

/** The page the address names (`#disputes`: a reload, Back, a bookmark), if this person's menu has it. */
function pageInAddress(): Page | undefined {
  const name = location.hash.slice(1);
  if (!Object.hasOwn(LOADERS, name)) return undefined;
  const buttons = document.querySelectorAll<HTMLElement>(`nav [data-view="${CSS.escape(name)}"]`);
  return [...buttons].some((button) => getComputedStyle(button).display !== 'none') ? (name as Page) : undefined;
}

/** After sign-in or a reload: the page the address names, else the search. */
function openFirstPage(): void {
  const named = pageInAddress();
  if (named) {
    open(named, false);
    return;
  }
  history.replaceState(null, '', '#search');
  show('search');
}

/**
 * Opens a page of the menu. Each is an entry in the browser's history (`#audit`), so Back returns
 * to the page before, not out of the desk, and a reload stays on the page.
 */
function open(view: Page, remember = true): void {
  if (remember && location.hash !== `#${view}`) history.pushState(null, '', `#${view}`);
  const page = byId(`view-${view}`);
  for (const panel of page.querySelectorAll<HTMLElement>('[data-transient]')) {
    panel.hidden = true;
    for (const shownOnce of panel.querySelectorAll<HTMLInputElement>('input[readonly]')) shownOnce.value = '';
  }
  for (const message of page.querySelectorAll<HTMLElement>('.form-message')) message.textContent = '';
  clearFieldErrors(page);
  show(view);
  void LOADERS[view]?.();
}
onClickOnce(byId('sign-out-everywhere'), () =>
  signOut('/api/v1/auth/sign-out-everywhere', 'You have signed out on every device.'),
);
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-view]')) {
  button.addEventListener('click', () => open(button.dataset.view as Page));
}
// On a phone the menu is a strip that scrolls sideways. Chromium scrolls a focused entry into it only
// when the entry is wholly out of sight: one half in sight stayed cut at the edge, its focus ring
// with it. The strip's scroll-padding keeps the ring inside too.
byId('nav').addEventListener('focusin', (event) => {
  const entry = event.target as HTMLElement;
  if (entry.closest('.views')) entry.scrollIntoView({ block: 'nearest', inline: 'nearest' });
});
window.addEventListener('popstate', () => {
  // Signed out, the address names no page to go to.
  if (byId('nav').hidden) return;
  const named = pageInAddress();
  if (named) open(named, false);
});

// Search: a POST, so the identifier is never in a URL; the answer at a glance first, then the reports.
const searchLabel = byId<HTMLSelectElement>('search-label');
for (const [value, text] of LABELS) searchLabel.append(option(value, text));
// An account number alone finds it at every bank; choosing the bank narrows it to that one.
const searchBank = byId<HTMLSelectElement>('search-bank');
void loadBanks(searchBank, (b) => b.slug);
const showSearchBank = () => {
  byId('search-bank-field').hidden = searchLabel.value !== 'account';
};
searchLabel.addEventListener('change', () => {
  showSearchBank();
  // An error about the last kind ("must be 11 digits") is not about the kind now chosen.
  clearFieldErrors(byId('search-form'));
  byId('search-message').textContent = '';
});
showSearchBank();
const searchValue = () => {
  const value = byId<HTMLInputElement>('search-value').value;
  // A value that already names a bank (typed after the number) is sent as typed.
  if (searchLabel.value !== 'account' || !searchBank.value || /_|[a-z]/i.test(value)) return value;
  return `${value.replace(/\s/g, '')}_${searchBank.value}`;
};
onSubmitOnce(byId<HTMLFormElement>('search-form'), async (event) => {
  event.preventDefault();
  const out = byId('search-result');
  const started = performance.now();
  const { data, error } = await api.POST('/api/v1/external/reports/search', {
    body: { identifier: searchLabel.value as 'phone', value: searchValue() },
  });
  if (!data) {
    // The answer to an earlier search must not stand under this one's error as if it were its answer.
    out.replaceChildren();
    delete out.dataset.renderMs;
    // Nothing typed is asked for, not called "empty".
    return showFieldErrors(byId('search-form'), error, byId('search-message'), {
      ...(byId<HTMLInputElement>('search-value').value.trim() ? {} : { value: 'Type the value to search for' }),
    });
  }
  showDone(byId('search-form'), byId('search-message'), '');
  renderSearchResult(out, data.data, {
    companyId: viewer.companyId,
    // Analysts and admins for their member; the operators too (a review request's reports are disputed so).
    mayDispute: viewer.role !== 'viewer',
    onDispute: (reportId, about) => {
      open('disputes');
      // Cancel goes back to this result, not to an empty search.
      startDispute(reportId, about, () => open('search'));
    },
  });
  // Read by the e2e suite: from the click to the answer on screen.
  out.dataset.renderMs = String(Math.round(performance.now() - started));
});

// Another page asks for a search (a watched customer's "Search"): the search page, filled in and sent.
document.addEventListener('desk:search', (event) => {
  const { label, value } = (event as CustomEvent<{ label: string; value: string }>).detail;
  open('search');
  searchLabel.value = label;
  showSearchBank();
  // An account as the form takes it: the number, and its bank chosen in the list.
  const account = label === 'account' ? /^(\d{10})_(.+)$/.exec(value) : null;
  searchBank.value = account?.[2] ?? '';
  byId<HTMLInputElement>('search-value').value = account?.[1] ?? value;
  byId<HTMLFormElement>('search-form').requestSubmit();
});

// File a report: the server's own messages appear beside the field they are about.
const fileType = byId<HTMLSelectElement>('file-fraudType');
// No kind chosen for the person: a report filed without a look at this list would say the first one.
fileType.append(option('', 'Choose the kind of fraud'));
for (const [value, text] of FRAUD_TYPES) fileType.append(option(value, text));
const fileRows = byId('file-identifiers');
fileRows.append(identifierRow(0, LABELS));
wireAddIdentifier(byId<HTMLButtonElement>('file-add-identifier'), fileRows, LABELS);
characterCount(byId<HTMLTextAreaElement>('file-reason'), byId('file-reason-count'), 50, 2000);
const fileEvidence = new EvidenceList(
  byId<HTMLInputElement>('file-evidence'),
  byId('file-evidence-list'),
  '/api/v1/external/uploads',
);
onSubmitOnce(byId<HTMLFormElement>('file-form'), async (event) => {
  const status = (event.submitter as HTMLButtonElement | null)?.value === 'draft' ? 'draft' : 'published';
  if (fileEvidence.busy()) {
    byId('file-message').textContent = 'The evidence files are still uploading. Save when each shows “added”.';
    return;
  }
  const noBank = missingBanks(fileRows);
  const { data, error } = await api.POST('/api/v1/external/reports', {
    body: {
      fraudType: fileType.value as 'other',
      fraudReason: byId<HTMLTextAreaElement>('file-reason').value,
      identifiers: readIdentifiers(fileRows),
      attachments: fileEvidence.urls(),
      status,
    },
  });
  if (!data) {
    return showFieldErrors(byId('file-form'), withBankErrors(noBank, error), byId('file-message'), REPORT_FORM_IN_WORDS);
  }
  // An empty form for the next report: pressing Publish again must not file this one twice.
  byId<HTMLFormElement>('file-form').reset();
  resetIdentifierRows(byId<HTMLButtonElement>('file-add-identifier'), fileRows, LABELS);
  fileEvidence.reset();
  byId('file-reason').dispatchEvent(new Event('input'));
  showDone(
    byId('file-form'),
    byId('file-message'),
    // Named as Submissions lists it (by kind and day): the id is for software, and no page shows it.
    status === 'draft'
      ? 'Saved as a draft: find it under Submissions to finish and publish it. The form is empty for the next report.'
      : 'Published: it is on the list now and under Submissions. The form is empty for the next report.',
  );
  // Focus leaves the button: an Enter pressed again would send the empty form and answer with errors.
  byId('file-message').focus();
});

initAccount({ endSession, enrol });
initSubmissions();
initModeration();
initReviews();
initTeam();
initKeys();
initWatchlist();
initDisputes();
initWebhooks();
initScreening();
initCompanies();
initPeople();
void start();
