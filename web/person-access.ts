// A way back in for a person (decision 0132), from the Team page (a member's admin) and the People
// page (the operators' admins): a new invitation for one who has not joined, a link to choose a new
// password for one who has, and, for a lost phone, their second factor taken away.
import { api, momentText, onClickOnce, tell } from './common.js';
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

/**
 * A cell of a person's row, named by its column. On a phone the row is drawn as a card and the cell
 * shows this name before its value (`table.person-cards` in web/style.css); a wide screen shows the
 * table's header row instead. The name is the column's header, word for word.
 */
export function personCell(label: string, ...content: (string | Node)[]): HTMLTableCellElement {
  const cell = document.createElement('td');
  cell.dataset.label = label;
  cell.append(...content);
  return cell;
}

/** A person's status in words (the service's codes are lower-case words of one). */
const STATUS_WORDS: Record<string, string> = {
  invited: 'Invited, not joined yet',
  active: 'Active',
  suspended: 'Suspended',
  removed: 'Removed',
};
export const statusInWords = (status: string): string => STATUS_WORDS[status] ?? status;

function smallButton(text: string, label: string): HTMLButtonElement {
  const button = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'secondary cell-control',
    textContent: text,
  });
  button.setAttribute('aria-label', label);
  return button;
}

const linkLabel = (user: PersonRow, invited: boolean) =>
  invited ? `Send ${user.email} a new invitation` : `Send ${user.email} a link to choose a new password`;

/** A link shown for one person is taken away before anything else is said on the page. */
export function hideLink(place: Pick<AccessPlace, 'linkBox' | 'linkField'>): void {
  place.linkBox.hidden = true;
  place.linkField.value = '';
}

/**
 * What an action on a person did, brought into sight: the answer sits above the list, out of sight
 * from a button far down a long one (on a phone the list is screens long). A link to hand over takes
 * the keyboard's focus, selected, as copying it is what comes next. A refusal takes it first, to be
 * read before anything else is pressed (the keyboard left far below it was out of sight on a phone).
 * Otherwise the message is scrolled to, and the keyboard stays where it was.
 */
export function reveal(place: Pick<AccessPlace, 'message' | 'linkBox' | 'linkField'>, refused = false): void {
  if (refused) {
    place.message.tabIndex = -1;
    place.message.focus();
  } else if (!place.linkBox.hidden) {
    place.linkField.focus();
    place.linkField.select();
  } else place.message.scrollIntoView({ block: 'nearest' });
}

/** A refusal said with whom it was about: the message sits far from that person's row. */
const refusedFor = (who: string, why: string | undefined, fallback: string) => `Not done for ${who}. ${why ?? fallback}`;

export function accessButtons(user: PersonRow, place: AccessPlace): HTMLButtonElement[] {
  const { message } = place;
  const who = user.name ?? user.email;
  const buttons: HTMLButtonElement[] = [];
  if (user.status === 'invited' || user.status === 'active') {
    const invited = user.status === 'invited';
    const link = smallButton(invited ? 'New invitation' : 'Password link', linkLabel(user, invited));
    onClickOnce(link, async () => {
      hideLink(place);
      const { data, error } = await api.POST(LINK[place.side], { params: { path: { userId: user.id } } });
      if (!data) {
        tell(message, refusedFor(who, error?.message, 'The link could not be made. Try again.'), 'error');
        reveal(place, true);
        return;
      }
      const what = invited ? 'A new invitation' : 'A link to choose a new password';
      const until = momentText(data.data.expiresAt);
      place.linkField.value = data.data.url ?? '';
      place.linkBox.hidden = data.data.url === null;
      tell(
        message,
        data.data.url === null
          ? `${what} was e-mailed to ${user.email}. It works once, until ${until}; earlier links no longer work.`
          : `${what} for ${who} is below: send it to ${user.email} yourself. It works once, until ${until}; earlier links no longer work.`,
      );
      reveal(place);
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
      if (error) {
        // Refused, nothing changed: a link shown a moment ago for them still works and stays.
        tell(message, refusedFor(who, error.message, 'The second factor could not be reset. Try again.'), 'error');
        reveal(place, true);
        return;
      }
      hideLink(place);
      await place.reload();
      tell(
        message,
        `${who}'s second factor was reset. They set up a new one at their next sign-in. If they also need a password link, it goes by e-mail, or another administrator makes it.`,
      );
      // Not the button now in its place (Remove, Suspend): this person's row, at its harmless first action.
      document
        .querySelector<HTMLElement>(`button[aria-label="${CSS.escape(linkLabel(user, false))}"]`)
        ?.focus({ preventScroll: true });
      reveal(place);
    });
    buttons.push(reset);
  }
  return buttons;
}
