// The person's own account: who they are, their password, their recovery codes, their second factor, their e-mail alerts.
import { api, byId, clearFieldErrors, emailText, factPairs, onClickOnce, onSubmitOnce, showFieldErrors, tell } from './common.js';

const ROLE_NAMES: Record<string, string> = {
  admin: 'Administrator',
  analyst: 'Analyst',
  viewer: 'Viewer',
  moderator: 'Moderator',
};

/** What the page needs of the desk: ending the session (a new password does), and the enrolment page. */
let desk: { endSession(reason: string): void; enrol(): Promise<void> };

export async function loadAccount(): Promise<void> {
  const facts = byId('account-facts');
  const { data } = await api.GET('/api/v1/auth/me');
  if (!data) {
    facts.replaceChildren(...factPairs([['Account', 'Could not be loaded. Try again in a moment.']]));
    return;
  }
  const { user, member } = data.data;
  facts.replaceChildren(
    ...factPairs([
      ['Name', user.name ?? '—'],
      ['E-mail', emailText(user.email)],
      ['Member', member.name],
      ['Role', ROLE_NAMES[user.role] ?? user.role],
      ['Second factor', user.totpEnrolled ? 'On: a code from your authenticator app' : 'Off: your password alone'],
    ]),
  );
  byId('recovery-box').hidden = !user.totpEnrolled;
  byId('totp-setup-box').hidden = user.totpEnrolled;
  await loadAlerts();
}

/** E-mail alerts: offered to whoever may have them, and shown to whoever has them on (to turn them off). */
async function loadAlerts(): Promise<void> {
  const { data } = await api.GET('/api/v1/auth/me/watchlist-alerts');
  const alerts = data?.data.watchlistAlerts;
  byId('alerts-box').hidden = !alerts || (!alerts.available && !alerts.on);
  byId<HTMLInputElement>('alerts-on').checked = alerts?.on ?? false;
  const every = document.querySelector<HTMLInputElement>(
    `input[name="alerts-every"][value="${alerts?.every ?? 'quarter_hour'}"]`,
  );
  if (every) every.checked = true;
  clearFieldErrors(byId('alerts-form'));
  // On, but no longer sent (the person is now a viewer, or the service stopped sending e-mail):
  // said, so the ticked box does not promise mail that will not come.
  tell(
    byId('alerts-message'),
    alerts?.on && !alerts.available ? 'No e-mails are sent to you now. Untick and save to turn them off.' : '',
    'neutral',
  );
}

export function initAccount(deps: typeof desk): void {
  desk = deps;

  onSubmitOnce(byId<HTMLFormElement>('password-form'), async (event) => {
    event.preventDefault();
    const form = byId('password-form');
    clearFieldErrors(form);
    const { data, error } = await api.POST('/api/v1/auth/password', {
      body: {
        currentPassword: byId<HTMLInputElement>('current-password').value,
        newPassword: byId<HTMLInputElement>('new-password').value,
      },
    });
    // A wrong current password is the service's 401, not a field error: said beside that field all the same.
    const wrongCurrent = (error as { data?: { code?: string } } | undefined)?.data?.code === 'INVALID_CREDENTIALS';
    const shown = wrongCurrent
      ? { message: error?.message, data: { errors: [{ field: 'currentPassword', message: 'is not your current password' }] } }
      : error;
    if (!data) return showFieldErrors(form, shown, byId('password-message'));
    // The service ended every session, this one too: the desk starts again at sign-in.
    desk.endSession('Your password is changed, and you are signed out everywhere. Sign in with the new one.');
  });

  onSubmitOnce(byId<HTMLFormElement>('new-codes-form'), async (event) => {
    event.preventDefault();
    const form = byId('new-codes-form');
    clearFieldErrors(form);
    const field = byId<HTMLInputElement>('new-codes-code');
    const { data, error } = await api.POST('/api/v1/auth/recovery-codes', { body: { code: field.value.trim() } });
    if (!data) return showFieldErrors(form, error, byId('new-codes-message'));
    field.value = '';
    byId('new-codes-list').replaceChildren(
      ...data.data.recoveryCodes.map((code) => Object.assign(document.createElement('li'), { textContent: code })),
    );
    byId('new-codes').hidden = false;
    tell(byId('new-codes-message'), 'New recovery codes made; the old ones no longer work.');
  });

  onSubmitOnce(byId<HTMLFormElement>('alerts-form'), async (event) => {
    event.preventDefault();
    const form = byId('alerts-form');
    clearFieldErrors(form);
    const on = byId<HTMLInputElement>('alerts-on').checked;
    const every =
      document.querySelector<HTMLInputElement>('input[name="alerts-every"]:checked')?.value === 'day' ? 'day' : 'quarter_hour';
    const { data, error } = await api.PUT('/api/v1/auth/me/watchlist-alerts', { body: { on, every } });
    if (!data) return showFieldErrors(form, error, byId('alerts-message'));
    const saved = data.data.watchlistAlerts;
    tell(
      byId('alerts-message'),
      !saved.on
        ? 'Saved: no more e-mails about watched customers.'
        : saved.every === 'day'
          ? 'Saved: you will be e-mailed once a day, at 8 in the morning, when reports named a customer your member watches.'
          : 'Saved: you will be e-mailed when a report names a customer your member watches.',
    );
  });

  onClickOnce(byId('totp-setup'), () => desk.enrol());
}
