// Identifier rows: a type, a value with a hint for that type, and a bank for accounts (sent as <nuban>_<slug>).
import { loadBanks, option } from './common.js';

/**
 * One row. `prefix` keeps element ids unique when two forms on a page have rows (filing, editing a
 * draft); `initial` fills it from a revealed value, an account's bank chosen once the list is in.
 */
export function identifierRow(
  index: number,
  labels: [string, string, string][],
  prefix = 'identifier',
  initial?: { label: string; value: string },
): HTMLElement {
  const row = document.createElement('div');
  row.className = 'identifier-row';
  const id = `${prefix}-${index}`;
  row.innerHTML = `
    <label for="${id}-label">Kind of detail</label>
    <select id="${id}-label" class="id-label"></select>
    <label for="${id}-value">Detail</label>
    <p class="hint" id="${id}-hint"></p>
    <input id="${id}-value" class="id-value" data-field="identifiers/${index}/value" aria-describedby="${id}-hint">
    <div class="bank" hidden>
      <label for="${id}-bank">Bank of this account</label>
      <select id="${id}-bank" class="id-bank" data-field="identifiers/${index}/bank"><option value="">Choose a bank</option></select>
    </div>
    <button type="button" class="secondary remove-row" aria-describedby="${id}-label ${id}-value">Remove this detail</button>`;
  const label = row.querySelector('select.id-label') as HTMLSelectElement;
  for (const [value, text] of labels) label.append(option(value, text));
  const input = row.querySelector('input.id-value') as HTMLInputElement;
  const bank = row.querySelector('select.id-bank') as HTMLSelectElement;
  const account = initial?.label === 'account' ? /^(\d{10})_(.+)$/.exec(initial.value) : null;
  if (initial) {
    label.value = initial.label;
    input.value = account ? (account[1] as string) : initial.value;
  }
  void loadBanks(bank, (b) => b.slug).then(() => {
    if (account) bank.value = account[2] as string;
  });
  const hint = row.querySelector('.hint') as HTMLElement;
  const sync = () => {
    hint.textContent = labels.find(([value]) => value === label.value)?.[2] ?? '';
    (row.querySelector('.bank') as HTMLElement).hidden = label.value !== 'account';
  };
  label.addEventListener('change', sync);
  sync();
  // The only row is never removed (the style sheet hides its button): a report needs one detail.
  (row.querySelector('button.remove-row') as HTMLButtonElement).addEventListener('click', () => {
    const list = row.parentElement;
    if (!list || list.children.length < 2) return;
    const next = (row.nextElementSibling ?? row.previousElementSibling) as HTMLElement;
    row.remove();
    list.dispatchEvent(new Event('rows-changed'));
    const status = list.nextElementSibling;
    if (status?.classList.contains('rows-status')) {
      status.textContent = `Detail removed; ${list.children.length} left.`;
    }
    // The keyboard carries on at the row that took its place, not at the top of the page.
    next.querySelector<HTMLElement>('select.id-label')?.focus();
  });
  return row;
}

/** A report holds at most this many identifiers (the service's limit). */
export const MAX_IDENTIFIER_ROWS = 10;

/**
 * "Add identifier": a new row, with the keyboard's focus on its first field so a person using
 * the keyboard or a screen reader carries on where the row appeared. The button is disabled at
 * the limit, and enabled again when a row is removed (or by `resetIdentifierRows`).
 */
export function wireAddIdentifier(
  button: HTMLButtonElement,
  rows: HTMLElement,
  labels: [string, string, string][],
  prefix?: string,
  max = MAX_IDENTIFIER_ROWS,
) {
  button.addEventListener('click', () => {
    if (rows.children.length >= max) return;
    // A row removed from the middle frees a position, not its number: ids stay unique.
    let index = rows.children.length;
    while (document.getElementById(`${prefix ?? 'identifier'}-${index}-label`)) index++;
    const row = identifierRow(index, labels, prefix);
    rows.append(row);
    row.querySelector<HTMLElement>('select.id-label')?.focus();
    button.disabled = rows.children.length >= max;
  });
  rows.addEventListener('rows-changed', () => {
    button.disabled = rows.children.length >= max;
  });
  // Where a removal is said to a screen reader (focus moves on without a word otherwise).
  const status = Object.assign(document.createElement('p'), { className: 'visually-hidden rows-status' });
  status.setAttribute('role', 'status');
  rows.after(status);
}

/** Back to one empty row, after a report was filed. */
export function resetIdentifierRows(button: HTMLButtonElement, rows: HTMLElement, labels: [string, string, string][]) {
  rows.replaceChildren(identifierRow(0, labels));
  button.disabled = false;
}

type Label = 'phone';

interface FilledRow {
  label: string;
  value: string;
  bank: string;
}

/**
 * The rows that will be sent (a row left empty is skipped), each field's `data-field` renumbered
 * to the position it is sent at: the service's `identifiers/1/value` is the second row *sent*, which
 * is not the second row on screen when one above it was left empty. When none is filled, the first
 * row keeps `identifiers/0/...`, where "add at least one" is shown.
 */
function filledRows(rows: HTMLElement): FilledRow[] {
  const filled: FilledRow[] = [];
  const all = [...rows.querySelectorAll<HTMLElement>('.identifier-row')];
  const values = all.map((row) => (row.querySelector('input.id-value') as HTMLInputElement).value.trim());
  const noneFilled = values.every((value) => !value);
  all.forEach((row, index) => {
    const value = values[index] as string;
    const label = (row.querySelector('select.id-label') as HTMLSelectElement).value;
    const bank = row.querySelector('select.id-bank') as HTMLSelectElement;
    const sentAt = value ? filled.length : noneFilled && index === 0 ? 0 : undefined;
    for (const [field, name] of [
      [row.querySelector('input.id-value') as HTMLInputElement, 'value'],
      [bank, 'bank'],
    ] as const) {
      if (sentAt === undefined) field.removeAttribute('data-field');
      else field.dataset.field = `identifiers/${sentAt}/${name}`;
    }
    if (value) filled.push({ label, value, bank: bank.value });
  });
  return filled;
}

export function readIdentifiers(rows: HTMLElement): { label: Label; value: string }[] {
  return filledRows(rows).map(({ label, value, bank }) => ({
    label: label as Label,
    value: label === 'account' && bank ? `${value.replace(/\s/g, '')}_${bank}` : value,
  }));
}

/**
 * An account number with no bank chosen, said at its bank picker before anything is sent (the
 * service would answer with the stored form `<number>_<bank slug>`, which is for integrators).
 */
export function missingBanks(
  rows: HTMLElement,
): { message: string; data: { errors: { field: string; message: string }[] } } | undefined {
  const errors = filledRows(rows).flatMap(({ label, bank }, index) =>
    label === 'account' && !bank ? [{ field: `identifiers/${index}/bank`, message: 'Choose the bank of this account' }] : [],
  );
  return errors.length > 0 ? { message: 'Choose the bank of each account.', data: { errors } } : undefined;
}

/**
 * The service's answer with the bank pickers' own errors added: a form with an account but no bank
 * is still sent, so every other mistake is named in the same answer, and the service's words for
 * that account ("write it as <number>_<bank slug>") give way to "Choose the bank of this account".
 */
export function withBankErrors(noBank: ReturnType<typeof missingBanks>, error: unknown): unknown {
  // Only a list of field errors is merged: a refusal of another kind (a 403, a 429, the service down) is said as it is.
  const theirErrors = (error as { data?: { errors?: unknown } } | undefined)?.data?.errors;
  if (!noBank || (error !== undefined && !Array.isArray(theirErrors))) return error ?? noBank;
  const banks = noBank.data.errors;
  const rows = new Set(banks.map((e) => e.field.replace(/\/bank$/, '/value')));
  const theirs = ((error as { data?: { errors?: { field: string; message: string }[] } } | undefined)?.data?.errors ?? []).filter(
    (e) => !rows.has(e.field),
  );
  return { message: noBank.message, data: { errors: [...banks, ...theirs] } };
}
