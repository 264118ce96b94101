// The operators' review requests (decision 0122): a person who believes they are wrongly listed
// asked on /review. Opening one reads it in clear (audited); its details can be searched at once
// (batch search, also audited); closing says what was done.
import {
  api,
  byId,
  clearFieldErrors,
  factPairs,
  identifierText,
  labelName,
  momentText,
  onClickOnce,
  onSubmitOnce,
  showFieldErrors,
  tell,
} from './common.js';

let current: { id: string; identifiers: { label: string; value: string }[] } | null = null;

const OUTCOMES: Record<string, string> = {
  disputed: 'disputed the reports found',
  not_listed: 'nothing was listed',
  declined: 'the listing stands',
};

export async function loadReviews(): Promise<void> {
  const status = byId<HTMLSelectElement>('reviews-status').value as 'open' | 'closed' | '';
  const reference = byId<HTMLInputElement>('reviews-reference').value.trim();
  const { data, error } = await api.GET('/api/v1/admin/review-requests', {
    params: { query: { page: 1, limit: 50, ...(status ? { status } : {}), ...(reference ? { reference } : {}) } },
  });
  const count = byId('reviews-count');
  if (!data) {
    byId('reviews-list').replaceChildren();
    return showFieldErrors(byId('reviews-filter'), error, count);
  }
  clearFieldErrors(byId('reviews-filter'));
  const { data: items, meta } = data.data;
  // Waiting requests come oldest first (the longest wait first); the others newest first.
  const which = status === 'open' ? 'oldest' : 'newest';
  count.textContent = `${meta.total} request${meta.total === 1 ? '' : 's'}${meta.total > items.length ? ` · the ${which} ${items.length} below` : ''}`;
  byId('reviews-list').replaceChildren(
    ...items.map((r) => {
      const li = document.createElement('li');
      const open = Object.assign(document.createElement('button'), {
        type: 'button',
        className: 'link-dark',
        textContent: `${r.reference} · ${r.labels.map(labelName).join(', ')} · ${momentText(r.createdAt)}${r.outcome ? ` · closed: ${OUTCOMES[r.outcome]}` : ''}`,
      });
      open.addEventListener('click', () => void openReview(r.id));
      li.append(open);
      return li;
    }),
  );
}

async function openReview(id: string): Promise<void> {
  const { data, error } = await api.GET('/api/v1/admin/review-requests/{id}', { params: { path: { id } } });
  if (!data) {
    byId('reviews-count').textContent = error?.message ?? 'Could not open the request.';
    return;
  }
  const r = data.data.request;
  current = { id: r.id, identifiers: r.identifiers };
  byId('review-title').textContent = `Review request ${r.reference}`;
  byId('review-facts').replaceChildren(
    ...factPairs([
      ['Received', momentText(r.createdAt)],
      ['From', r.name],
      ['E-mail', r.email ?? '—'],
      ['Phone', r.phone ?? '—'],
      ...(r.closedAt
        ? ([['Closed', `${momentText(r.closedAt)}: ${OUTCOMES[r.outcome ?? ''] ?? r.outcome}. ${r.outcomeNote ?? ''}`]] as [
            string,
            string,
          ][])
        : []),
    ]),
  );
  byId('review-statement').textContent = r.statement;
  byId('review-identifiers').replaceChildren(
    ...r.identifiers.map((i) => Object.assign(document.createElement('li'), { textContent: identifierText(i.label, i.value) })),
  );
  byId('review-search-message').textContent = '';
  byId('review-message').textContent = '';
  byId('review-close-form').hidden = r.status === 'closed';
  // What was chosen for the last request is not this one's: it is chosen afresh.
  byId<HTMLSelectElement>('review-outcome').value = '';
  byId<HTMLTextAreaElement>('review-note').value = '';
  clearFieldErrors(byId('review-close-form'));
  byId('review').hidden = false;
  // On the title, which names the request opened (the panel itself has no name to read out).
  byId('review-title').focus();
}

export function initReviews(): void {
  onSubmitOnce(byId<HTMLFormElement>('reviews-filter'), loadReviews);
  // Every detail at once through the batch search (each audited as a search): how much is listed
  // under each, before the operator opens the search page to dispute what it shows.
  onClickOnce(byId('review-search'), async () => {
    if (!current) return;
    const { data, error } = await api.POST('/api/v1/external/reports/search/batch', {
      body: { items: current.identifiers.map((i) => ({ identifier: i.label as 'phone', value: i.value })) },
    });
    const out = byId('review-search-message');
    if (!data) return tell(out, error?.message ?? 'The search did not work.', 'error');
    const lines = data.data.results.map((result, n) => {
      const asked = current?.identifiers[n];
      const name = asked ? identifierText(asked.label, asked.value) : `Detail ${n + 1}`;
      if ('error' in result) return `${name}: ${result.error.message}`;
      const { totalReports, totalPublicReports } = result.summary;
      return `${name}: ${totalReports} member report${totalReports === 1 ? '' : 's'}, ${totalPublicReports} public report${totalPublicReports === 1 ? '' : 's'}`;
    });
    tell(out, `${lines.join('. ')}. Dispute a member report from the search page.`);
  });
  onSubmitOnce(byId<HTMLFormElement>('review-close-form'), async () => {
    if (!current) return;
    const form = byId('review-close-form');
    const { data, error } = await api.POST('/api/v1/admin/review-requests/{id}/close', {
      params: { path: { id: current.id } },
      body: {
        outcome: byId<HTMLSelectElement>('review-outcome').value as 'disputed',
        note: byId<HTMLTextAreaElement>('review-note').value,
      },
    });
    if (!data) {
      return showFieldErrors(form, error, byId('review-message'), {
        ...(byId<HTMLSelectElement>('review-outcome').value ? {} : { outcome: 'Choose what was done' }),
      });
    }
    const note = byId<HTMLTextAreaElement>('review-note').value.trim();
    byId<HTMLTextAreaElement>('review-note').value = '';
    form.hidden = true;
    // The panel says the request is closed at once, as it will when opened again.
    const closed = data.data.request;
    byId('review-facts').append(
      ...factPairs([
        ['Closed', `${momentText(closed.closedAt ?? '')}: ${OUTCOMES[closed.outcome ?? ''] ?? closed.outcome}. ${note}`],
      ]),
    );
    tell(byId('review-message'), `Closed: ${OUTCOMES[data.data.request.outcome ?? ''] ?? ''}.`);
    byId('review-title').focus();
    await loadReviews();
  });
}
