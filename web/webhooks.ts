// A company admin's webhook endpoints: add one (its signing secret shown once), pause or resume it,
// replace its secret, remove it, and read its delivery log with each attempt, sending one again.
import {
  actionButton,
  api,
  byId,
  clearFieldErrors,
  factPairs,
  momentText,
  onSubmitOnce,
  showAgain,
  showFieldErrors,
  tell,
} from './common.js';
import { confirmAction } from './confirm.js';

const EVENTS: [string, string][] = [
  ['watchlist.match', 'A report names someone on your watchlist'],
  ['public_report.published', 'A public report names your institution'],
  ['public_report.withdrawn', 'A public report that named your institution is taken down'],
  ['submission.exited', 'A report that matched your watchlist leaves the list or is taken down'],
  ['submission.relisted', 'A report that matched your watchlist returns to the list'],
  ['submission.disputed', 'One of your reports is disputed (answer it before its deadline)'],
];
/** The same events in a few words, for the delivery log's narrow column. */
const EVENT_SHORT: Record<string, string> = {
  'watchlist.match': 'Watchlist match',
  'public_report.published': 'Public report names you',
  'public_report.withdrawn': 'Public report taken down',
  'submission.exited': 'Report left the list',
  'submission.relisted': 'Report back on the list',
  'submission.disputed': 'Your report disputed',
};
const eventInWords = (code: string) => EVENTS.find(([value]) => value === code)?.[1] ?? code;
type Webhook = { id: string; url: string; events: string[]; status: 'active' | 'disabled'; failingSince: string | null };
const when = (iso: string | null) => (iso ? momentText(iso) : '—');
const cell = (text: string) => Object.assign(document.createElement('td'), { textContent: text });
let shown: Webhook | null = null;

function showTable(bodyId: string, shown: boolean): void {
  (byId(bodyId).closest('.scroll-x') as HTMLElement).hidden = !shown;
}

function showSecret(secret: string, message: string): void {
  byId<HTMLInputElement>('webhook-secret').value = secret;
  byId('webhook-secret-box').hidden = false;
  tell(byId('webhooks-message'), message);
  byId('webhook-secret').focus();
}

export async function loadWebhooks(): Promise<void> {
  const { data, error } = await api.GET('/api/v1/external/webhooks');
  if (!data) {
    byId('webhooks-message').textContent = error?.message ?? 'Could not load the endpoints.';
    return;
  }
  const hooks = data.data.webhooks;
  byId('webhooks-count').textContent = `${hooks.length} endpoint${hooks.length === 1 ? '' : 's'}`;
  // An empty list says nothing the count does not.
  byId('webhook-rows').hidden = hooks.length === 0;
  byId('webhook-rows').replaceChildren(
    ...hooks.map((hook) => {
      // A card, not a table row: at 360 px a table of address, events, state and four buttons
      // scrolled the address out of view.
      const card = document.createElement('li');
      const address = Object.assign(document.createElement('p'), { className: 'card-title' });
      address.textContent = hook.url;
      const facts = Object.assign(document.createElement('dl'), { className: 'facts' });
      facts.append(
        ...factPairs([
          [
            'State',
            hook.status !== 'active'
              ? 'paused'
              : hook.failingSince
                ? `active, but failing since ${momentText(hook.failingSince)}: deliveries are retried, and it is paused after 3 days of failures`
                : 'active',
          ],
          ['Events', hook.events.map(eventInWords).join('; ')],
        ]),
      );
      card.append(address, facts);
      const actions = document.createElement('div');
      actions.className = 'card-actions';
      const set = (enabled: boolean) => async () => {
        const { error: failed } = await api.PATCH('/api/v1/external/webhooks/{id}', {
          params: { path: { id: hook.id } },
          body: { enabled },
        });
        tell(
          byId('webhooks-message'),
          failed ? failed.message : `${hook.url} ${enabled ? 'resumed' : 'paused'}.`,
          failed ? 'error' : 'ok',
        );
        await loadWebhooks();
      };
      actions.append(
        actionButton('Deliveries', `Deliveries to ${hook.url}`, () => loadDeliveries(hook)),
        hook.status === 'active'
          ? actionButton('Pause', `Pause ${hook.url}`, set(false))
          : actionButton('Resume', `Resume ${hook.url}`, set(true)),
        actionButton('New secret', `New secret for ${hook.url}`, async () => {
          const sure = await confirmAction({
            title: `Replace the signing secret of ‘${hook.url}’?`,
            body: 'A new secret is shown once, here. Deliveries are signed with both for 24 hours, then with the new one only: give it to your endpoint before then.',
            confirmLabel: 'Replace secret',
            danger: false,
          });
          if (!sure) return;
          const { data: rotated, error: failed } = await api.POST('/api/v1/external/webhooks/{id}/rotate-secret', {
            params: { path: { id: hook.id } },
            body: {},
          });
          if (rotated) showSecret(rotated.data.webhook.secret, 'Copy the new secret now: it is not shown again.');
          else byId('webhooks-message').textContent = failed?.message ?? 'That did not work.';
        }),
        actionButton('Remove', `Remove ${hook.url}`, async () => {
          const sure = await confirmAction({
            title: `Remove the endpoint ‘${hook.url}’?`,
            body: 'Nothing more is sent to it, and its delivery log goes with it. This cannot be undone.',
            confirmLabel: 'Remove endpoint',
          });
          if (!sure) return;
          const { error: failed } = await api.DELETE('/api/v1/external/webhooks/{id}', { params: { path: { id: hook.id } } });
          tell(byId('webhooks-message'), failed ? failed.message : `${hook.url} removed.`, failed ? 'error' : 'ok');
          if (shown?.id === hook.id) byId('deliveries').hidden = true;
          await loadWebhooks();
        }),
      );
      card.append(actions);
      return card;
    }),
  );
}

const attempts = (n: number) => `${n} attempt${n === 1 ? '' : 's'}`;
function stateInWords(status: string, n: number): string {
  if (status === 'delivered') return `Delivered (${attempts(n)})`;
  if (status === 'failed') return `Gave up after ${attempts(n)}`;
  return n === 0 ? 'Waiting to be sent' : `Not delivered yet (${attempts(n)})`;
}

/** The sender's error codes (Node's), as the person who runs the endpoint would look for them. */
const FAILURES: Record<string, string> = {
  ERR_TLS_CERT_ALTNAME_INVALID: "the endpoint's certificate is for another address",
  CERT_HAS_EXPIRED: "the endpoint's certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the endpoint's certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the endpoint's certificate is signed by an authority no one trusts",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the endpoint's certificate could not be checked (is its chain complete?)",
  ECONNREFUSED: 'the endpoint refused the connection (is anything listening there?)',
  ECONNRESET: 'the endpoint closed the connection',
  EHOSTUNREACH: 'the endpoint could not be reached',
  ENETUNREACH: 'the endpoint could not be reached',
  ETIMEDOUT: 'the connection timed out',
  EPROTO: 'the endpoint did not answer in HTTPS',
};
function failureInWords(error: string): string {
  const status = /^HTTP (\d{3})$/.exec(error)?.[1];
  if (status) return `answered ${status}`;
  return FAILURES[error] ?? error;
}

async function loadDeliveries(hook: Webhook): Promise<void> {
  shown = hook;
  const { data, error } = await api.GET('/api/v1/external/webhooks/{id}/deliveries', {
    params: { path: { id: hook.id }, query: { page: 1, limit: 50 } },
  });
  byId('deliveries-title').textContent = `Deliveries to ${hook.url}`;
  byId('deliveries').hidden = false;
  if (!data) {
    byId('deliveries-count').textContent = error?.message ?? 'Could not load the deliveries.';
    return;
  }
  const { data: items, meta } = data.data;
  byId('deliveries-count').textContent = `${meta.total} deliver${meta.total === 1 ? 'y' : 'ies'}, newest first`;
  showTable('delivery-rows', items.length > 0);
  byId('delivery-rows').replaceChildren(
    ...items.map((d) => {
      const last = d.log.at(-1);
      const outcome = last
        ? `${last.error ? failureInWords(last.error) : `answered ${last.statusCode}`} (${last.latencyMs} ms)`
        : 'not tried yet';
      const tr = document.createElement('tr');
      tr.append(cell(when(d.createdAt)), cell(EVENT_SHORT[d.type] ?? d.type), cell(stateInWords(d.status, d.attempts)));
      tr.append(cell(d.status === 'pending' && d.nextAttemptAt ? `${outcome}; next try ${when(d.nextAttemptAt)}` : outcome));
      const actions = document.createElement('td');
      if (d.status !== 'pending') {
        actions.append(
          actionButton('Send again', `Send delivery of ${when(d.createdAt)} again`, async () => {
            const { error: failed } = await api.POST('/api/v1/external/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
              params: { path: { id: hook.id, deliveryId: d.id } },
            });
            tell(byId('deliveries-count'), failed ? failed.message : 'Queued to be sent again.', failed ? 'error' : 'ok');
            await loadDeliveries(hook);
          }),
        );
      }
      tr.append(actions);
      return tr;
    }),
  );
  byId('deliveries').focus();
}

export function initWebhooks(): void {
  const events = byId('webhook-events');
  for (const [value, text] of EVENTS) {
    const label = document.createElement('label');
    label.className = 'choice';
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'event', value });
    label.append(box, ` ${text}`);
    events.append(label);
  }
  onSubmitOnce(byId<HTMLFormElement>('webhook-form'), async (event) => {
    event.preventDefault();
    const form = byId('webhook-form');
    clearFieldErrors(form);
    const chosen = [...events.querySelectorAll<HTMLInputElement>('input:checked')].map((box) => box.value);
    const { data, error } = await api.POST('/api/v1/external/webhooks', {
      body: { url: byId<HTMLInputElement>('webhook-url').value.trim(), events: chosen as ['watchlist.match'] },
    });
    if (!data) {
      return showFieldErrors(form, error, byId('webhook-form-message'), {
        events: 'Choose at least one event to be told about',
      });
    }
    byId('webhook-form-message').textContent = '';
    // Empty for the next endpoint: its events are chosen afresh.
    byId<HTMLFormElement>('webhook-form').reset();
    showSecret(data.data.webhook.secret, 'Endpoint added. Copy its signing secret now: it is not shown again.');
    await loadWebhooks();
    // Shown before the list is read again (a secret shown once must not wait on it), then brought
    // back into sight: the redrawn list above pushed it down.
    showAgain('webhook-secret');
  });
}
