// Public reports naming the member's bank (decision 0138): the ones it was told of, newest first,
// and one read whole with the identifiers the sender gave, so the bank can find and stop the account.
// Shown only to a member that has any (one linked to a bank by the operators).
import type { paths } from '../client/src/index.js';
import {
  api,
  byId,
  dayText,
  factPairs,
  fraudTypeName,
  identifierText,
  momentText,
  type NewerOlder,
  newerOlder,
  onClickOnce,
  searchButton,
  tell,
} from './common.js';

const PAGE = 20;
let pager: NewerOlder | undefined;

type Listed =
  paths['/api/v1/external/public-reports']['get']['responses'][200]['content']['application/json']['data']['data'][number];

async function read(listed: Listed): Promise<void> {
  const panel = byId('named-report');
  // Whatever was open before goes first: a failed read must not leave another report's details in sight.
  panel.hidden = true;
  const { data, error } = await api.GET('/api/v1/external/public-reports/{id}', { params: { path: { id: listed.id } } });
  if (!data) {
    tell(
      byId('named-message'),
      error?.data.code === 'NOT_FOUND'
        ? 'This report can no longer be read: it may have been taken down. The list is brought up to date.'
        : (error?.message ?? 'Could not open the report. Try again.'),
      'error',
    );
    await loadNamedReports();
    return;
  }
  byId('named-message').textContent = '';
  const report = data.data.report;
  byId('named-report-title').textContent = `Public report ${report.reference}`;
  byId('named-report-facts').replaceChildren(
    ...factPairs([
      ['Fraud type', fraudTypeName(report.fraudType)],
      ['Happened', dayText(report.eventDate)],
      ['Published', momentText(report.publishedAt)],
      ['Bank or service named', report.financialInstitution],
    ]),
  );
  byId('named-report-identifiers').replaceChildren(
    ...report.identifiers.map(({ label, value }) => {
      const li = document.createElement('li');
      if (value === null) {
        li.textContent = `${identifierText(label, '…')} (could not be opened; the operators are told)`;
        return li;
      }
      li.append(identifierText(label, value), ' ', searchButton(label, value));
      return li;
    }),
  );
  byId('named-report-story').textContent = report.fraudReason;
  panel.hidden = false;
  const title = byId('named-report-title');
  title.tabIndex = -1;
  title.focus();
}

function item(listed: Listed): HTMLLIElement {
  const li = document.createElement('li');
  const what = document.createElement('strong');
  what.textContent = `${fraudTypeName(listed.fraudType)} · reference ${listed.reference}`;
  const when = Object.assign(document.createElement('span'), {
    className: 'match-what',
    textContent:
      listed.status === 'taken_down'
        ? `Sent to you on ${momentText(listed.toldAt)}; the operators have since taken it down`
        : `Happened ${dayText(listed.eventDate)} · names ${listed.financialInstitution} · sent to you on ${momentText(listed.toldAt)}`,
  });
  li.append(what, ' ', when);
  if (listed.status === 'published') {
    const open = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'secondary cell-control match-search',
      textContent: 'Read',
    });
    open.setAttribute('aria-label', `Read public report ${listed.reference}`);
    onClickOnce(open, () => read(listed));
    li.append(' ', open);
  }
  return li;
}

export async function loadNamedReports(): Promise<void> {
  const { data, error } = await api.GET('/api/v1/external/public-reports', {
    params: { query: { page: pager?.page() ?? 1, limit: PAGE } },
  });
  const section = byId('named-reports');
  byId('named-report').hidden = true;
  if (!data) {
    // Not the same as having none: said, where the list would be.
    section.hidden = false;
    byId('named-count').textContent = error?.message ?? 'Could not load the public reports naming your bank. Try again.';
    byId('named-list').replaceChildren();
    return;
  }
  // A member linked to no bank is told of none: the section stays out of its way.
  if (data.data.meta.total === 0) {
    section.hidden = true;
    return;
  }
  const { data: reports, meta } = data.data;
  section.hidden = false;
  const where = pager?.shown(meta.total, PAGE) ?? '';
  byId('named-count').textContent = `${meta.total.toLocaleString('en-GB')} public report${meta.total === 1 ? '' : 's'}${where}`;
  byId('named-list').replaceChildren(...reports.map(item));
}

export function initNamedReports(): void {
  pager = newerOlder('named', loadNamedReports);
}

export const resetNamedReports = (): void => pager?.reset();
