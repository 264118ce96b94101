// What happened to the company's watched customers: each report that named one, newest first, and
// each such report that left the list or came back. The same events its webhooks carry, so a member
// without a webhook receiver learns of them here (GET /api/v1/external/watchlist/matches).
import type { paths } from '../client/src/index.js';
import {
  api,
  byId,
  fraudTypeName,
  identifierText,
  labelInSentence,
  labelName,
  momentText,
  type NewerOlder,
  newerOlder,
  searchButton,
} from './common.js';

const PAGE = 20;
let pager: NewerOlder | undefined;

type Match =
  paths['/api/v1/external/watchlist/matches']['get']['responses'][200]['content']['application/json']['data']['data'][number];

/** "a report by Acme Bank (Romance scam)" or "a public report (Romance scam), published by the operators". */
function reportText(report: Match['report']): string {
  const kind = fraudTypeName(report.fraudType);
  return report.kind === 'public_report'
    ? `a public report (${kind}), published by the operators`
    : `a report by ${report.reportingCompany ?? 'another member'} (${kind})`;
}

function whatHappened(match: Match): string {
  const report = reportText(match.report);
  if (match.type === 'submission.exited') return `Left the list: ${report}`;
  if (match.type === 'submission.relisted') return `Back on the list: ${report}`;
  return `Named in ${report}`;
}

function matchItem(match: Match): HTMLLIElement {
  const { label, value, ref, watching } = match.watchlistEntry;
  const li = document.createElement('li');
  const who = document.createElement('strong');
  who.textContent =
    value !== null
      ? `${identifierText(label, value)}${ref ? ` (${ref})` : ''}`
      : watching
        ? `A watched ${labelInSentence(label)} (it could not be opened; the operators are told)`
        : `${labelName(label)} you no longer watch`;
  const what = Object.assign(document.createElement('span'), {
    className: 'match-what',
    textContent: `${whatHappened(match)} · ${momentText(match.createdAt)}`,
  });
  li.append(who, ' ', what);
  if (value !== null) li.append(' ', searchButton(label, value));
  return li;
}

export async function loadMatches(): Promise<void> {
  const count = byId('matches-count');
  const { data, error } = await api.GET('/api/v1/external/watchlist/matches', {
    params: { query: { page: pager?.page() ?? 1, limit: PAGE } },
  });
  if (!data) {
    count.textContent = error?.message ?? 'Could not load what happened to your watched customers. Try again.';
    return;
  }
  const { data: matches, meta } = data.data;
  const where = pager?.shown(meta.total, PAGE) ?? '';
  count.textContent =
    meta.total === 0
      ? 'No report has named your watched customers yet.'
      : `${meta.total.toLocaleString('en-GB')} update${meta.total === 1 ? '' : 's'}${where}`;
  byId('matches-list').replaceChildren(...matches.map(matchItem));
}

export function initMatches(): void {
  pager = newerOlder('matches', loadMatches);
}

export const resetMatches = (): void => pager?.reset();
