// The operators' review requests (decision 0122): a person who believes they are wrongly listed
// asked on /review. Opening one reads it in clear (audited); its details can be searched at once
// (batch search, also audited); closing says what was done.
import {
  api,
  byId,
  clearFieldErrors,
  emailText,
  factPairs,
  identifierText,
  labelName,
  momentText,
  onClickOnce,
  onSubmitOnce,
  phoneText,
  readFromTitle,
  searchButton,
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

/**
 * How the request was closed, as facts: when and what was done in the grid, then the note (up to
 * 1,000 characters) as a paragraph across the whole panel; in one cell it ran to 10 lines at 360 px.
 */
function closedFacts(closedAt: string, outcome: string | null, note: string): HTMLElement[] {
  const pairs = factPairs([
    ['Closed', momentText(closedAt)],
    ['What was done', OUTCOMES[outcome ?? ''] ?? outcome ?? '—'],
  ]);
  if (!note) return pairs;
  const said = factPairs([['Closing note', note]]);
  for (const pair of said) pair.classList.add('wide', 'note');
  return [...pairs, ...said];
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
      ['E-mail', r.email ? emailText(r.email) : '—'],
      ['Phone', r.phone ? phoneText(r.phone) : '—'],
    ]),
    ...(r.closedAt ? closedFacts(r.closedAt, r.outcome, r.outcomeNote ?? '') : []),
  );
  byId('review-statement').textContent = r.statement;
  byId('review-identifiers').replaceChildren(
    ...r.identifiers.map((i) => Object.assign(document.createElement('li'), { textContent: identifierText(i.label, i.value) })),
  );
  byId('review-search-message').textContent = '';
  byId('review-search-results').replaceChildren();
  byId('review-message').textContent = '';
  byId('review-close-form').hidden = r.status === 'closed';
  // What was chosen for the last request is not this one's: it is chosen afresh.
  byId<HTMLSelectElement>('review-outcome').value = '';
  byId<HTMLTextAreaElement>('review-note').value = '';
  clearFieldErrors(byId('review-close-form'));
  byId('review').hidden = false;
  // On the title, which names the request opened (the panel itself has no name to read out).
  readFromTitle(byId('review-title'));
}

/** One detail searched: what is listed under it, and its Search, which opens the search page with it. */
function searchedItem(asked: { label: string; value: string }, found: string): HTMLLIElement {
  const li = document.createElement('li');
  const what = Object.assign(document.createElement('span'), { className: 'match-what', textContent: found });
  const detail = Object.assign(document.createElement('strong'), { textContent: identifierText(asked.label, asked.value) });
  li.append(detail, ' ', what, ' ', searchButton(asked.label, asked.value));
  return li;
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
    const list = byId('review-search-results');
    list.replaceChildren();
    if (!data) return tell(out, error?.message ?? 'The search did not work.', 'error');
    const asked = current.identifiers;
    list.replaceChildren(
      ...data.data.results.map((result, n) => {
        // The answers come in the order asked, one for each detail.
        const detail = asked[n] as { label: string; value: string };
        if ('error' in result) return searchedItem(detail, result.error.message);
        const { totalReports, totalPublicReports } = result.summary;
        const reports = (count: number, kind: string) => `${count} ${kind} report${count === 1 ? '' : 's'}`;
        return searchedItem(detail, `${reports(totalReports, 'member')}, ${reports(totalPublicReports, 'public')}`);
      }),
    );
    // Said once for a screen reader; each detail's line and its Search are in the list under it.
    const n = asked.length;
    tell(
      out,
      `Searched ${n === 1 ? 'the detail' : `all ${n} details`}. A line's Search opens the search page with that detail filled in, to see its reports or dispute a member report.`,
    );
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
    byId('review-facts').append(...closedFacts(closed.closedAt ?? '', closed.outcome, note));
    tell(byId('review-message'), `Closed: ${OUTCOMES[data.data.request.outcome ?? ''] ?? ''}.`);
    byId('review-title').focus();
    await loadReviews();
  });
}
