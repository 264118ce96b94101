// A search answer: the verdict at a glance, then each report. Identifier values of reports are sealed
// tokens, so only their kinds are shown; nothing here is ever written as HTML.

type SearchData = {
  reports: {
    fraudType: string;
    fraudReason: string;
    createdAt: string;
    reportingCompany: { businessName: string };
    identifiers: { label: string }[];
  }[];
  publicReports: { fraudType: string; fraudReason: string; createdAt: string; financialInstitution: string }[];
  summary: { totalReports: number; totalPublicReports: number; firstReportedAt: string | null; lastReportedAt: string | null };
};

function el(tag: string, text?: string, className?: string): HTMLElement {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}
const day = (iso: string | null) =>
  iso ? new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' }) : '—';

export function renderSearchResult(out: HTMLElement, data: SearchData): void {
  const { summary } = data;
  const total = summary.totalReports + summary.totalPublicReports;
  const members = new Set(data.reports.map((r) => r.reportingCompany.businessName)).size;
  const verdict = el('div', undefined, total ? 'verdict flagged' : 'verdict clear');
  verdict.append(el('h2', total ? `Reported ${total} time${total === 1 ? '' : 's'}` : 'No reports found'));
  const facts = el('dl', undefined, 'facts');
  for (const [term, value] of [
    ['Members reporting', String(members)],
    ['Public reports', String(summary.totalPublicReports)],
    ['First seen', day(summary.firstReportedAt)],
    ['Last seen', day(summary.lastReportedAt)],
  ]) {
    facts.append(el('dt', term), el('dd', value));
  }
  verdict.append(facts);
  out.replaceChildren(verdict);
  if (data.reports.length) {
    out.append(el('h2', 'Member reports'));
    const list = el('ol', undefined, 'reports');
    for (const r of data.reports) {
      const item = el('li');
      item.append(
        el('p', `${r.fraudType.replace(/_/g, ' ')} · ${day(r.createdAt)} · ${r.reportingCompany.businessName}`, 'meta'),
        el('p', r.fraudReason),
        el('p', `Identifiers: ${r.identifiers.map((i) => i.label.replace(/_/g, ' ')).join(', ')}`, 'hint'),
      );
      list.append(item);
    }
    out.append(list);
  }
  if (data.publicReports.length) {
    out.append(el('h2', 'Reports from the public'));
    const list = el('ol', undefined, 'reports');
    for (const r of data.publicReports) {
      const item = el('li');
      item.append(
        el('p', `${r.fraudType.replace(/_/g, ' ')} · ${day(r.createdAt)} · ${r.financialInstitution}`, 'meta'),
        el('p', r.fraudReason),
      );
      list.append(item);
    }
    out.append(list);
  }
}
