// A way back in for a person (decision 0132), from the Team page (a member's admin) and the People
// page (the operators' admins): a new invitation for one who has not joined, a link to choose a new
// password for one who has, and, for a lost phone, their second factor taken away.
import { api, onClickOnce } from './common.js';
import { confirmAction } from './confirm.js';

export type PersonRow = { id: string; email: string; name: string | null; status: string; totpEnrolled: boolean };

export interface AccessPlace {
  /** `external`: a member's own people; `admin`: the operators', anyone's. */
  side: 'external' | 'admin';
  message: HTMLElement;
  /** Where a link is shown to hand over when the service sends no e-mail. */
  linkBox: HTMLElement;
  linkField: HTMLTextAreaElement;
  reload(): Promise<void>;
}

const LINK = {
  external: '/api/v1/external/users/{userId}/password-link',
  admin: '/api/v1/admin/users/{userId}/password-link',
} as const;
const RESET = {
  external: '/api/v1/external/users/{userId}/second-factor/reset',
  admin: '/api/v1/admin/users/{userId}/second-factor/reset',
} as const;

function smallButton(text: string, label: string): HTMLButtonElement {
  const button = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'secondary cell-control',
    textContent: text,
  });
  button.setAttribute('aria-label', label);
  return button;
}

export function accessButtons(user: PersonRow, place: AccessPlace): HTMLButtonElement[] {
  const { message } = place;
  const who = user.name ?? user.email;
  const buttons: HTMLButtonElement[] = [];
  if (user.status === 'invited' || user.status === 'active') {
    const invited = user.status === 'invited';
    const link = smallButton(
      invited ? 'New invitation' : 'Password link',
      invited ? `Send ${user.email} a new invitation` : `Send ${user.email} a link to choose a new password`,
    );
    onClickOnce(link, async () => {
      const { data, error } = await api.POST(LINK[place.side], { params: { path: { userId: user.id } } });
      if (!data) {
        message.textContent = error?.message ?? 'The link could not be made. Try again.';
        return;
      }
      const what = invited ? 'A new invitation' : 'A link to choose a new password';
      const until = new Date(data.data.expiresAt).toLocaleString();
      place.linkField.value = data.data.url;
      place.linkBox.hidden = data.data.emailed;
      message.textContent = data.data.emailed
        ? `${what} was e-mailed to ${user.email}. It works once, until ${until}; earlier links no longer work.`
        : `${what} for ${who} is below: send it to them yourself. It works once, until ${until}; earlier links no longer work.`;
    });
    buttons.push(link);
  }
  if (user.status === 'active' && user.totpEnrolled) {
    const reset = smallButton('Reset second factor', `Reset the second factor of ${user.email}`);
    onClickOnce(reset, async () => {
      const sure = await confirmAction({
        title: `Reset the second factor of ${who}?`,
        body: `Do this only for a lost or replaced phone, once you are sure it is them asking. ${user.email} is signed out at once; their authenticator app and recovery codes stop working, and they set up a new one at their next sign-in.`,
        confirmLabel: 'Reset second factor',
      });
      if (!sure) return;
      const { error } = await api.POST(RESET[place.side], { params: { path: { userId: user.id } } });
      message.textContent = error
        ? error.message
        : `${who}'s second factor was reset. They set up a new one at their next sign-in.`;
      await place.reload();
    });
    buttons.push(reset);
  }
  return buttons;
}
