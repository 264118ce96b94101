// A company admin's API keys: issue, rotate (the old key keeps working for a day), revoke. A new key
// is shown once, here, and never again: the service keeps only its hash.
import { actionButton, api, byId, dayText, onClickOnce, showAgain, tell } from './common.js';
import { confirmAction } from './confirm.js';

function showNewKey(apiKey: string, message: string): void {
  byId<HTMLInputElement>('new-key').value = apiKey;
  byId('new-key-box').hidden = false;
  tell(byId('keys-message'), message);
  byId('new-key').focus();
}

export async function loadKeys(): Promise<void> {
  const { data, error } = await api.GET('/api/v1/external/keys');
  if (!data) {
    byId('keys-message').textContent = error?.message ?? 'Could not load the keys.';
    return;
  }
  const keys = data.data.keys;
  byId('keys-count').textContent = `${keys.filter((k) => k.status === 'active').length} active of ${keys.length}`;
  const body = byId('keys-rows');
  body.replaceChildren();
  const date = (iso: string | null) => (iso ? dayText(iso) : '—');
  for (const k of keys) {
    const tr = document.createElement('tr');
    const status = k.status === 'active' && k.expiresAt ? `active until ${date(k.expiresAt)}` : k.status;
    for (const text of [`${k.prefix}…`, status, date(k.createdAt), date(k.lastUsedAt)]) {
      tr.append(Object.assign(document.createElement('td'), { textContent: text }));
    }
    const actions = document.createElement('td');
    // A rotated key in its grace period is not rotated again (its replacement is), but it can be
    // revoked at once: a key rotated because it leaked must not wait out the grace.
    if (k.status === 'active') {
      const button = (text: string, label: string, run: () => Promise<void>) => actions.append(actionButton(text, label, run));
      if (!k.replacedBy)
        button('Rotate', `Rotate key ${k.prefix}`, async () => {
          const sure = await confirmAction({
            title: `Replace the key ‘${k.prefix}…’?`,
            body: 'A new key is shown once, here. The old key keeps working for 24 hours, then stops: put the new one in its place before then.',
            confirmLabel: 'Replace key',
            danger: false,
          });
          if (!sure) return;
          const { data: rotated, error: failed } = await api.POST('/api/v1/external/keys/{keyId}/rotate', {
            params: { path: { keyId: k.id } },
            body: {},
          });
          if (!rotated) byId('keys-message').textContent = failed?.message ?? 'That did not work.';
          else
            showNewKey(
              rotated.data.apiKey,
              `Key ${k.prefix}… was replaced; it keeps working for 24 hours. Copy the new key now: it is not shown again.`,
            );
          await loadKeys();
          if (rotated) showAgain('new-key');
        });
      button('Revoke', `Revoke key ${k.prefix}`, async () => {
        const sure = await confirmAction({
          title: `Revoke the key ‘${k.prefix}…’?`,
          body: 'Systems that use this key stop working at once. This cannot be undone.',
          confirmLabel: 'Revoke key',
        });
        if (!sure) return;
        const { error: failed } = await api.POST('/api/v1/external/keys/{keyId}/revoke', { params: { path: { keyId: k.id } } });
        tell(byId('keys-message'), failed ? failed.message : `Key ${k.prefix}… was revoked.`, failed ? 'error' : 'ok');
        // The key shown once is taken off the page when it is the one revoked: it no longer works.
        const shown = byId<HTMLInputElement>('new-key');
        if (!failed && shown.value.startsWith(k.prefix)) {
          shown.value = '';
          byId('new-key-box').hidden = true;
        }
        await loadKeys();
      });
    }
    tr.append(actions);
    body.append(tr);
  }
}

export function initKeys(): void {
  onClickOnce(byId('issue-key'), async () => {
    const { data, error } = await api.POST('/api/v1/external/keys', { body: {} });
    if (!data) {
      byId('keys-message').textContent = error?.message ?? 'That did not work.';
      return;
    }
    showNewKey(data.data.apiKey, 'Copy the new key now: it is not shown again.');
    await loadKeys();
    // Shown before the list is read again (a key shown once must not wait on it), then brought back
    // into sight: the redrawn list above pushed it down.
    showAgain('new-key');
  });
}
