// A search answer: the verdict at a glance, then each report. Identifier values of reports are sealed
// tokens, so only their kinds are shown; nothing here is ever written as HTML.
import { dayText, factPairs, fraudTypeName, labelName } from './common.js';

type SearchData = {
  reports: {
    id: string;
    companyId: string;
    fraudType: string;
    fraudReason: string;
    createdAt: string;
    reportingCompany: { businessName: string };
    identifiers: { label: string }[];
    dispute: { status: string; respondBy: string } | null;
  }[];
  publicReports: { fraudType: string; fraudReason: string; createdAt: string; financialInstitution: string }[];
  summary: {
    totalReports: number;
    totalPublicReports: number;
    firstReportedAt: string | null;
    lastReportedAt: string | null;
    distinctCompanies: number;
    openDisputes: number;
    riskLevel: string;
  };
};

/** Who is looking: a company analyst may dispute another member's report from here. */
export type SearchViewer = {
  companyId: string | null;
  mayDispute: boolean;
  /** `about`: the report as the result names it, so the person sees which one they are disputing. */
  onDispute: (reportId: string, about: string) => void;
};

function el(tag: string, text?: string, className?: string): HTMLElement {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}
const RISK: Record<string, string> = { none: 'None', low: 'Low', medium: 'Medium', high: 'High' };
const day = (iso: string | null) => (iso ? dayText(iso) : '—');

export function renderSearchResult(out: HTMLElement, data: SearchData, viewer?: SearchViewer): void {
  const { summary } = data;
  const total = summary.totalReports + summary.totalPublicReports;
  const verdict = el('div', undefined, total ? 'verdict flagged' : 'verdict clear');
  verdict.append(el('h2', total ? `Reported ${total} time${total === 1 ? '' : 's'}` : 'No reports found'));
  const facts = el('dl', undefined, 'facts');
  facts.append(
    ...factPairs([
      ['Risk', RISK[summary.riskLevel] ?? summary.riskLevel],
      ['Members reporting', String(summary.distinctCompanies)],
      ['Public reports', String(summary.totalPublicReports)],
      ['Open disputes', String(summary.openDisputes)],
      ['First seen', day(summary.firstReportedAt)],
      ['Last seen', day(summary.lastReportedAt)],
    ]),
  );
  verdict.append(facts);
  out.replaceChildren(verdict);
  if (data.reports.length) {
    out.append(el('h2', 'Member reports'));
    const list = el('ol', undefined, 'reports');
    for (const r of data.reports) {
      const item = el('li');
      const about = `${fraudTypeName(r.fraudType)} · ${day(r.createdAt)} · ${r.reportingCompany.businessName}`;
      item.append(
        el('p', about, 'meta'),
        el('p', r.fraudReason),
        el('p', `Identifiers: ${r.identifiers.map((i) => labelName(i.label)).join(', ')}`, 'hint'),
      );
      if (r.dispute) item.append(el('p', disputeText(r.dispute), 'badge'));
      // Disputed already by someone else, it may still be disputed by this member (one dispute each);
      // a second of its own is refused in words.
      if (viewer?.mayDispute && r.companyId !== viewer.companyId) {
        const dispute = el('button', 'Dispute this report', 'secondary cell-control') as HTMLButtonElement;
        dispute.type = 'button';
        dispute.addEventListener('click', () => viewer.onDispute(r.id, about));
        item.append(dispute);
      }
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
        // The bank is the victim's, not who filed: a member card names its filer in that place.
        el(
          'p',
          `${fraudTypeName(r.fraudType)} · ${day(r.createdAt)} · from the public · victim's bank: ${r.financialInstitution}`,
          'meta',
        ),
        el('p', r.fraudReason),
      );
      list.append(item);
    }
    out.append(list);
  }
}

/** Where an open dispute stands, in words, and who acts next. */
function disputeText(dispute: { status: string; respondBy: string }): string {
  if (dispute.status === 'open') return `Disputed: the reporting member must answer by ${day(dispute.respondBy)}.`;
  if (dispute.status === 'upheld')
    return 'Disputed: the reporting member stands by it; either side may ask the operators to decide.';
  return 'Disputed: the operators are deciding.';
}
