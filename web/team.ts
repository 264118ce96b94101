// A company admin's pages: the team (invite, change a role, remove; the invite link is shown once,
// to hand over) and the company's audit trail, paged. Both through the typed client only.
import {
  api,
  byId,
  clearFieldErrors,
  labelName,
  momentText,
  onClickOnce,
  onSubmitOnce,
  option,
  pageButtons,
  showAgain,
  showFieldErrors,
  tell,
} from './common.js';
import { confirmAction } from './confirm.js';
import { accessButtons, hideLink, personCell, reveal, statusInWords } from './person-access.js';
import { viewer } from './viewer.js';

const ROLES: [string, string][] = [
  ['viewer', 'Viewer — search only'],
  ['analyst', 'Analyst — search, file and manage reports'],
  ['admin', 'Admin — also the team, keys and audit trail'],
];

const roleName = (role: string) => ROLES.find(([value]) => value === role)?.[1].split(' — ')[0] ?? role;

/** Where the Team page shows a colleague's link to hand over. */
const teamLink = () => ({ linkBox: byId('person-link-result'), linkField: byId<HTMLTextAreaElement>('person-link') });

export async function loadTeam(): Promise<void> {
  const { data, error } = await api.GET('/api/v1/external/users');
  const message = byId('team-message');
  if (!data) {
    message.textContent = error?.message ?? 'Could not load the team.';
    return;
  }
  const rows = data.data.users.filter((u) => u.status !== 'removed');
  byId('team-count').textContent = `${rows.length} ${rows.length === 1 ? 'person' : 'people'}`;
  const body = byId('team-rows');
  body.replaceChildren();
  for (const user of rows) {
    const tr = document.createElement('tr');
    const roleCell = personCell('Role');
    const select = Object.assign(document.createElement('select'), { className: 'cell-control' });
    select.setAttribute('aria-label', `Role of ${user.email}`);
    for (const [value, text] of ROLES) select.append(option(value, text.split(' — ')[0] as string));
    select.value = user.role;
    // Chosen, then saved with its own button: arrow keys on a list change its value, and browsing
    // the roles with the keyboard must not make someone an admin.
    const save = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'secondary cell-control',
      textContent: 'Save role',
      disabled: true,
    });
    save.setAttribute('aria-label', `Save the role of ${user.email}`);
    select.addEventListener('change', () => {
      save.disabled = select.value === user.role;
    });
    onClickOnce(save, async () => {
      save.disabled = true;
      const { error: failed } = await api.PATCH('/api/v1/external/users/{userId}', {
        params: { path: { userId: user.id } },
        body: { role: select.value as 'viewer' },
      });
      hideLink(teamLink());
      tell(
        message,
        failed ? failed.message : `${user.email} is now ${roleName(select.value).toLowerCase()}; they sign in again.`,
        failed ? 'error' : 'ok',
      );
      await loadTeam();
      // The table was drawn again: the keyboard goes back to this person's role, the eye to the answer.
      document
        .querySelector<HTMLElement>(`select[aria-label="${CSS.escape(`Role of ${user.email}`)}"]`)
        ?.focus({ preventScroll: true });
      reveal({ message, ...teamLink() });
    });
    // Unnamed: on a phone the card's buttons say what they do.
    const actions = document.createElement('td');
    // One's own role and membership are changed by another admin (the service refuses both):
    // offering them only led to a refusal.
    const appendRow = () => {
      tr.append(
        personCell('Name', user.name ?? '—'),
        personCell('E-mail', user.email),
        roleCell,
        personCell('Status', statusInWords(user.status)),
        actions,
      );
      body.append(tr);
    };
    if (user.id === viewer.userId) {
      roleCell.textContent = roleName(user.role);
      actions.textContent = 'You';
      appendRow();
      continue;
    }
    roleCell.append(select, save);
    const remove = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'secondary cell-control',
      textContent: 'Remove',
    });
    remove.setAttribute('aria-label', `Remove ${user.email}`);
    onClickOnce(remove, async () => {
      const sure = await confirmAction({
        title: `Remove ${user.name ?? user.email} from the team?`,
        body: `${user.email} is signed out at once and can no longer sign in. To bring them back, invite them again.`,
        confirmLabel: 'Remove person',
      });
      if (!sure) return;
      const { error: failed } = await api.DELETE('/api/v1/external/users/{userId}', {
        params: { path: { userId: user.id } },
      });
      hideLink(teamLink());
      tell(message, failed ? failed.message : `${user.email} was removed.`, failed ? 'error' : 'ok');
      await loadTeam();
      reveal({ message, ...teamLink() });
    });
    actions.append(
      ...accessButtons(user, {
        side: 'external',
        message: byId('team-message'),
        ...teamLink(),
        reload: loadTeam,
      }),
      remove,
    );
    appendRow();
  }
}

// The trail's action codes in words; a code not listed here (a newer service) is shown in words of its own.
const ACTIONS: Record<string, string> = {
  search: 'Search',
  screen: 'Customer screened',
  screening_start: 'Customer file sent for screening',
  decode: 'Values revealed',
  public_decode: 'Public report read',
  public_read: 'Public report naming your bank read',
  watchlist_matches_read: 'Watchlist matches read',
  create: 'Report filed',
  edit: 'Draft edited',
  publish: 'Report published',
  exit: 'Taken off the list',
  relist: 'Put back on the list',
  renew: 'Listing renewed',
  expire: 'Listing expired',
  safelist_add: 'Safelist entry added',
  safelist_remove: 'Safelist entry removed',
  'webhook.disabled': 'Webhook endpoint turned off',
  dispute_open: 'Dispute opened',
  dispute_uphold: 'Dispute: report stood by',
  dispute_exit: 'Dispute: report taken off',
  dispute_escalate: 'Dispute sent to the operators',
  dispute_keep: 'Dispute decided: report stays',
  dispute_remove: 'Dispute decided: report removed',
  dispute_time_out: 'Dispute not answered in time',
  'submission.disputed': 'Your report was disputed',
  'submission.exited': 'Your report left the list',
  'submission.relisted': 'Your report is back on the list',
  key_issue: 'API key issued',
  key_rotate: 'API key replaced',
  key_revoke: 'API key revoked',
  user_invite: 'Person invited',
  user_role: 'Role changed',
  user_remove: 'Person removed',
  user_suspend: 'Person suspended',
  user_password_link: 'Password link sent',
  user_password_reset: 'Password changed by link',
  user_totp_reset: 'Second factor reset',
  user_activate: 'Person let back in',
  webhook_create: 'Webhook endpoint added',
  webhook_change: 'Webhook endpoint changed',
  webhook_remove: 'Webhook endpoint removed',
  webhook_secret: 'Webhook secret replaced',
};
const actionName = (code: string) => ACTIONS[code] ?? code.replace(/[._]/g, ' ');

/** What an administrative change was made to: a person by name, a key or an endpoint by the start of its id. */
function subjectText(action: string, id: string, names: Directory): string {
  if (action.startsWith('user_')) return names.people.get(id) ?? `person ${id.slice(0, 8)}`;
  if (action.startsWith('key_')) return keyText(id, names);
  if (action.startsWith('screening_')) return `customer file ${id.slice(0, 8)}`;
  return `endpoint ${id.slice(0, 8)}`;
}

/** A key as the API keys page shows it (its first characters, `rf_…`), so the two can be matched. */
function keyText(id: string, names: Directory): string {
  const prefix = names.keys.get(id);
  return prefix ? `key ${prefix}…` : `key ${id.slice(0, 8)}`;
}

/** Who acted from outside the company, in words: their ids are never given. */
const OUTSIDE_ACTORS = { another_member: 'another member', operators: 'the operators', system: 'Redflag (automatic)' };
let auditPage = 1;
const AUDIT_LIMIT = 20;

/** Who a user id is (by name, or address before they set one) and what a key id is shown as. */
type Directory = { people: Map<string, string>; keys: Map<string, string> };
let directory: Promise<Directory> | undefined;

/**
 * The trail names people and keys, not ids. Read once a visit (the view opened or filtered),
 * not for every page turned: the people and keys of a company change far less often.
 */
function auditDirectory(fresh: boolean): Promise<Directory> {
  if (fresh || !directory) {
    directory = Promise.all([api.GET('/api/v1/external/users'), api.GET('/api/v1/external/keys')]).then(([users, keys]) => ({
      people: new Map((users.data?.data.users ?? []).map((u) => [u.id, u.name || u.email])),
      keys: new Map((keys.data?.data.keys ?? []).map((k) => [k.id, k.prefix])),
    }));
  }
  return directory;
}

let auditLoads = 0;

export async function loadAudit(): Promise<void> {
  // Only the latest load draws: an earlier one answering later must not replace a filtered page.
  const load = ++auditLoads;
  const action = byId<HTMLSelectElement>('audit-action').value || undefined;
  // A screened customer book writes a row per customer: tens of thousands that bury everything
  // else, so they are left out unless asked for (or are what the filter asks for).
  const hideScreened = !action && !byId<HTMLInputElement>('audit-screened').checked;
  const { data, error } = await api.GET('/api/v1/external/audit', {
    params: {
      query: {
        page: auditPage,
        limit: AUDIT_LIMIT,
        ...(action ? { action } : {}),
        ...(hideScreened ? { excludeAction: 'screen' } : {}),
      },
    },
  });
  if (load !== auditLoads) return;
  if (!data) {
    byId('audit-count').textContent = error?.message ?? 'Could not load the audit trail.';
    return;
  }
  const { data: events, meta } = data.data;
  const pages = Math.max(1, Math.ceil(meta.total / meta.limit));
  byId('audit-count').textContent = `${meta.total} event${meta.total === 1 ? '' : 's'} · page ${meta.page} of ${pages}`;
  byId<HTMLButtonElement>('audit-previous').disabled = auditPage <= 1;
  byId<HTMLButtonElement>('audit-next').disabled = auditPage >= pages;
  const names = await auditDirectory(auditPage === 1);
  if (load !== auditLoads) return;
  const body = byId('audit-rows');
  body.replaceChildren();
  for (const event of events) {
    const tr = document.createElement('tr');
    const who =
      event.actor !== 'company'
        ? OUTSIDE_ACTORS[event.actor]
        : event.userId
          ? (names.people.get(event.userId) ?? `user ${event.userId.slice(0, 8)}`)
          : keyText(event.keyId ?? '', names);
    // What was searched is never shown, only its label and how many reports matched.
    const what = event.subjectId
      ? subjectText(event.action, event.subjectId, names)
      : event.label
        ? `${labelName(event.label)}${event.resultCount === null ? '' : ` · ${event.resultCount} found`}`
        : // A report by the start of its reference: the whole id (36 characters) does not fit a phone.
          event.reportId
          ? `report ${event.reportId.slice(0, 8)}`
          : '';
    for (const text of [momentText(event.createdAt), actionName(event.action), who, what]) {
      tr.append(Object.assign(document.createElement('td'), { textContent: text }));
    }
    body.append(tr);
  }
}

export function initTeam(): void {
  // Every action the table can show is one to filter by: the same words, from the same list.
  const actions = byId<HTMLSelectElement>('audit-action');
  for (const [value, text] of Object.entries(ACTIONS)) actions.append(option(value, text));
  const role = byId<HTMLSelectElement>('invite-role');
  for (const [value, text] of ROLES) role.append(option(value, text));
  onSubmitOnce(byId<HTMLFormElement>('invite-form'), async () => {
    const form = byId('invite-form');
    // The last person's one-time link must not stay beside this invitation's answer.
    byId('invite-result').hidden = true;
    byId<HTMLInputElement>('invite-link').value = '';
    const { data, error } = await api.POST('/api/v1/external/users', {
      body: { email: byId<HTMLInputElement>('invite-email').value, role: role.value as 'viewer' },
    });
    if (!data) return showFieldErrors(form, error, byId('invite-message'));
    clearFieldErrors(form);
    byId('invite-message').dataset.tone = 'ok';
    byId('invite-message').textContent = data.data.emailed
      ? 'Invitation sent by e-mail. The link below works once, for 72 hours.'
      : 'Hand this link to them: it works once, for 72 hours, and is not shown again.';
    byId<HTMLInputElement>('invite-link').value = data.data.inviteUrl;
    byId('invite-result').hidden = false;
    byId<HTMLInputElement>('invite-email').value = '';
    await loadTeam();
    // On the link, shown once: the table redrawn above pushed it out of sight on a phone.
    showAgain('invite-link');
  });
  byId<HTMLFormElement>('audit-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    auditPage = 1;
    void loadAudit();
  });
  pageButtons(byId('audit-previous'), byId('audit-next'), byId('audit-count'), {
    page: () => auditPage,
    turn: (page) => {
      auditPage = page;
      return loadAudit();
    },
  });
}
