// The operators' admins: everyone who signs in, the operators and each member's people. They let a
// member's first admin in, help one whose admin lost access (decision 0132), and suspend a person.
import { api, byId, clearFieldErrors, momentText, onClickOnce, onSubmitOnce, option, showFieldErrors, tell } from './common.js';
import { confirmAction } from './confirm.js';
import { accessButtons, hideLink, personCell, reveal, statusInWords } from './person-access.js';
import { viewer } from './viewer.js';

const OPERATOR_ROLES: [string, string][] = [
  ['moderator', 'Moderator — public reports, reviews and disputes'],
  ['admin', 'Admin — also companies, people and the safelist'],
];
const COMPANY_ROLES: [string, string][] = [
  ['admin', 'Admin — the team, keys and audit trail too'],
  ['analyst', 'Analyst — search, file and manage reports'],
  ['viewer', 'Viewer — search only'],
];
const ROLE_NAMES: Record<string, string> = { admin: 'Admin', analyst: 'Analyst', viewer: 'Viewer', moderator: 'Moderator' };
const OPERATORS = 'operators';

/** The members a person can belong to: the operators (their own id), then each company by name. */
let members: { operatorId: string; names: Map<string, string> } | undefined;

async function loadMembers(): Promise<NonNullable<typeof members>> {
  const me = await api.GET('/api/v1/auth/me');
  // Every member, a page of 100 at a time: the 101st must be as easy to find as the first.
  const names = new Map<string, string>();
  for (let page = 1; ; page++) {
    const { data } = await api.GET('/api/v1/admin/companies', { params: { query: { page, limit: 100 } } });
    for (const company of data?.data.data ?? []) names.set(company.id, company.businessName);
    if (!data || page * 100 >= data.data.meta.total) break;
  }
  members = { operatorId: me.data?.data.member.id ?? '', names };
  for (const [id, all] of [
    ['people-member', true],
    ['people-invite-member', false],
  ] as const) {
    const select = byId<HTMLSelectElement>(id);
    const chosen = select.value;
    select.replaceChildren(
      ...(all ? [option('', 'Everyone')] : []),
      option(OPERATORS, 'The operators'),
      ...[...names].map(([companyId, name]) => option(companyId, name)),
    );
    if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  }
  fillRoles();
  return members;
}

/** The invite form offers the roles of the member chosen. */
function fillRoles(): void {
  const roles = byId<HTMLSelectElement>('people-invite-member').value === OPERATORS ? OPERATOR_ROLES : COMPANY_ROLES;
  const select = byId<HTMLSelectElement>('people-invite-role');
  const chosen = select.value;
  select.replaceChildren(...roles.map(([value, text]) => option(value, text)));
  if (roles.some(([value]) => value === chosen)) select.value = chosen;
}

/** Where the People page shows a person's link to hand over. */
const peopleLink = () => ({ linkBox: byId('people-link-result'), linkField: byId<HTMLTextAreaElement>('people-link') });

export async function loadPeople(): Promise<void> {
  const known = await loadMembers();
  const message = byId('people-message');
  const chosen = byId<HTMLSelectElement>('people-member').value;
  const query = chosen === '' ? {} : chosen === OPERATORS ? { operatorId: known.operatorId } : { companyId: chosen };
  const { data, error } = await api.GET('/api/v1/admin/users', { params: { query } });
  if (!data) {
    message.textContent = error?.message ?? 'Could not load the people.';
    return;
  }
  const rows = data.data.users.filter((u) => u.status !== 'removed');
  byId('people-count').textContent = `${rows.length} ${rows.length === 1 ? 'person' : 'people'}`;
  byId('people-rows').replaceChildren(
    ...rows.map((user) => {
      const tr = document.createElement('tr');
      const member = user.companyId ? (known.names.get(user.companyId) ?? 'A member') : 'The operators';
      // Unnamed: on a phone the card's buttons say what they do.
      const actions = document.createElement('td');
      if (user.id === viewer.userId) actions.textContent = 'You';
      else
        actions.append(
          ...accessButtons(user, {
            side: 'admin',
            message,
            ...peopleLink(),
            reload: loadPeople,
          }),
          ...suspendButton(user),
        );
      tr.append(
        personCell('Name', user.name ?? '—'),
        personCell('E-mail', user.email),
        personCell('Member', member),
        personCell('Role', ROLE_NAMES[user.role] ?? user.role),
        personCell('Status', statusInWords(user.status)),
        actions,
      );
      return tr;
    }),
  );
}

/** Suspend (asked first: they are signed out at once) or let back in. */
function suspendButton(user: { id: string; email: string; name: string | null; status: string }): HTMLButtonElement[] {
  if (user.status !== 'active' && user.status !== 'suspended') return [];
  const suspend = user.status === 'active';
  const button = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'secondary cell-control',
    textContent: suspend ? 'Suspend' : 'Let back in',
  });
  button.setAttribute('aria-label', `${suspend ? 'Suspend' : 'Let back in'} ${user.email}`);
  onClickOnce(button, async () => {
    if (
      suspend &&
      !(await confirmAction({
        title: `Suspend ${user.name ?? user.email}?`,
        body: `${user.email} is signed out at once and cannot sign in until let back in.`,
        confirmLabel: 'Suspend person',
      }))
    )
      return;
    const path = suspend ? '/api/v1/admin/users/{userId}/suspend' : '/api/v1/admin/users/{userId}/activate';
    const { error } = await api.POST(path, { params: { path: { userId: user.id } } });
    await loadPeople();
    hideLink(peopleLink());
    tell(
      byId('people-message'),
      error ? error.message : `${user.email} ${suspend ? 'is suspended' : 'can sign in again'}.`,
      error ? 'error' : 'ok',
    );
    reveal({ message: byId('people-message'), ...peopleLink() });
  });
  return [button];
}

export function initPeople(): void {
  onSubmitOnce(byId<HTMLFormElement>('people-filter'), async (event) => {
    event.preventDefault();
    await loadPeople();
  });
  byId('people-invite-member').addEventListener('change', fillRoles);
  onSubmitOnce(byId<HTMLFormElement>('people-invite-form'), async (event) => {
    event.preventDefault();
    const form = byId('people-invite-form');
    clearFieldErrors(form);
    byId('people-invite-result').hidden = true;
    const member = byId<HTMLSelectElement>('people-invite-member').value;
    const { data, error } = await api.POST('/api/v1/admin/users', {
      body: {
        email: byId<HTMLInputElement>('people-invite-email').value,
        role: byId<HTMLSelectElement>('people-invite-role').value as 'admin',
        ...(member === OPERATORS ? { operatorId: members?.operatorId ?? '' } : { companyId: member }),
      },
    });
    const text = byId('people-invite-message');
    if (!data) return showFieldErrors(form, error, text);
    text.dataset.tone = 'ok';
    text.textContent = data.data.emailed
      ? `The invitation was e-mailed to ${data.data.user.email}.`
      : `Send ${data.data.user.email} the invitation link below yourself: it works once, until ${momentText(data.data.expiresAt)}.`;
    byId<HTMLTextAreaElement>('people-invite-link').value = data.data.inviteUrl;
    byId('people-invite-result').hidden = data.data.emailed;
    byId<HTMLInputElement>('people-invite-email').value = '';
    await loadPeople();
  });
}
