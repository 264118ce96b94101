// "Are you sure?" before what cannot be undone (decision 0131): a native modal <dialog>, which keeps
// the keyboard inside it, closes on Escape and gives focus back to the button that opened it.
import { countedLength } from './common.js';

export interface Confirmation {
  /** The action and its object, as a question: "Revoke the key ‘rf_ab12…’?" */
  title: string;
  /** What follows, in a sentence or two: "Systems that use this key stop working at once." */
  body: string;
  /** The action as a verb, on its button: "Revoke key". */
  confirmLabel: string;
  /** Red for what destroys or stops something (the default); the plain button for a replacement. */
  danger?: boolean;
}

let opened = 0;

/**
 * True when the person pressed the action's button; false on Cancel or Escape. Cancel has the focus
 * when the dialog opens, so Enter alone never does the action. The dialog is built with DOM calls
 * (text only: titles name people, addresses and values) and leaves the page when it closes.
 */
export function confirmAction({ title, body, confirmLabel, danger = true }: Confirmation): Promise<boolean> {
  const id = `confirm-${++opened}`;
  const dialog = Object.assign(document.createElement('dialog'), { className: 'confirm' });
  const heading = Object.assign(document.createElement('h2'), { id: `${id}-title`, textContent: title });
  const text = Object.assign(document.createElement('p'), { id: `${id}-body`, textContent: body });
  dialog.setAttribute('aria-labelledby', heading.id);
  dialog.setAttribute('aria-describedby', text.id);
  const cancel = Object.assign(document.createElement('button'), {
    type: 'button',
    className: 'secondary',
    textContent: 'Cancel',
  });
  cancel.autofocus = true;
  const confirm = Object.assign(document.createElement('button'), {
    type: 'button',
    className: danger ? 'danger' : '',
    textContent: confirmLabel,
  });
  const actions = Object.assign(document.createElement('div'), { className: 'dialog-actions' });
  actions.append(cancel, confirm);
  dialog.append(heading, text, actions);
  document.body.append(dialog);
  return new Promise((resolve) => {
    let answer = false;
    confirm.addEventListener('click', () => {
      answer = true;
      dialog.close();
    });
    cancel.addEventListener('click', () => dialog.close());
    // Escape closes the dialog itself (a cancel, then a close): the answer stays no.
    dialog.addEventListener(
      'close',
      () => {
        dialog.remove();
        resolve(answer);
      },
      { once: true },
    );
    dialog.showModal();
    // autofocus says so already; said again for a browser that focuses the first button or the dialog.
    cancel.focus();
  });
}

/**
 * Whether a reason (or statement) is within the limits the service checks. One that is not is sent
 * without asking: the service refuses it beside its field and nothing changes, where asking first
 * would have the person confirm, then correct.
 */
export function withinLimits(text: string, min: number, max: number): boolean {
  const n = countedLength(text);
  return n >= min && n <= max;
}
