import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type VerdictReport, verdict, verdictInputsSql, verdictOfInputs } from '../src/modules/search/verdict.js';
import { localPhone } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { filePublicReport, publicBody } from './helpers/public-reports.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const NOW = new Date('2026-11-23T12:00:00Z');
const HALF_LIFE = 365;
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);
const r = (companyId: string | null, fraudType: string, ageDays = 0, disputed = false): VerdictReport => ({
  companyId,
  fraudType,
  reportedAt: daysAgo(ageDays),
  disputed,
});
const times = (n: number, report: VerdictReport) => Array.from({ length: n }, () => report);

/** The verdict rule's table: [case, reports, expected level]. */
const CASES: Array<[string, VerdictReport[], string]> = [
  ['nothing matched', [], 'none'],
  ['one fresh money-mule report from one member', [r(A, 'money_mule')], 'medium'],
  ['ten reports from one member count as one member', times(10, r(A, 'money_mule')), 'medium'],
  ['one report each from three members', [r(A, 'money_mule'), r(B, 'money_mule'), r(C, 'money_mule')], 'high'],
  ['a fresh "other" report weighs little', [r(A, 'other')], 'low'],
  ['a fresh report vs the same report three years old (fresh)', [r(A, 'money_mule', 1)], 'medium'],
  ['a fresh report vs the same report three years old (old)', [r(A, 'money_mule', 1095)], 'low'],
  ['a ten-year-old theft report has all but faded', [r(A, 'theft', 3650)], 'none'],
  ['a disputed money-mule report is weighted down', [r(A, 'money_mule', 0, true)], 'low'],
  ['a disputed sanctions report still counts', [r(A, 'sanctioned/ofac', 0, true)], 'medium'],
  ['one sanctions report', [r(A, 'sanctioned/ofac')], 'medium'],
  ['sanctions reports from two members', [r(A, 'sanctioned/ofac'), r(B, 'sanctioned/ofac')], 'high'],
  ['one public report counts less than a member', [r(null, 'money_mule')], 'low'],
  ['ten public reports are capped at one member', times(10, r(null, 'money_mule')), 'medium'],
  ['two members at exactly the high threshold', [r(A, 'money_mule'), r(B, 'theft')], 'high'],
  ['an unknown fraud type weighs as "other"', [r(A, 'something_new')], 'low'],
  ['a member counts its heaviest report', [r(A, 'other'), r(A, 'sanctioned/ofac', 365)], 'medium'],
  [
    'three members, all disputed',
    [r(A, 'money_mule', 0, true), r(B, 'money_mule', 0, true), r(C, 'money_mule', 0, true)],
    'medium',
  ],
  ['a member and three public reports', [r(A, 'money_mule'), ...times(3, r(null, 'theft'))], 'medium'],
  ['a report dated ahead of the clock counts as fresh', [r(A, 'identity_theft', -2)], 'medium'],
];

describe('the verdict rule (pure function)', () => {
  it.each(CASES)('%s', (_name, reports, expected) => {
    expect(verdict(reports, NOW, HALF_LIFE).riskLevel).toBe(expected);
  });

  it('halves a report every half-life', () => {
    const fresh = verdict([r(A, 'theft')], NOW, HALF_LIFE).score;
    expect(verdict([r(A, 'theft', 365)], NOW, HALF_LIFE).score).toBeCloseTo(fresh / 2, 10);
    expect(verdict([r(A, 'theft', 365)], NOW, 730).score).toBeCloseTo(fresh / Math.SQRT2, 10);
  });
});

describe('the verdict as search applies it (inputs reduced in SQL, rule in Node)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { jobTickSeconds: 0 } });
  });
  afterAll(() => t.close());

  it('reads the inputs in SQL as the rule expects them, on every case of the table', async () => {
    for (const [name, reports] of CASES) {
      const rows =
        reports.length === 0
          ? sql`select null::uuid, null::text, null::timestamptz, null::boolean where false`
          : sql`values ${sql.join(
              reports.map(
                (x) =>
                  sql`(${x.companyId}::uuid, ${x.fraudType}::text, ${x.reportedAt.toISOString()}::timestamptz, ${x.disputed}::boolean)`,
              ),
            )}`;
      const result = await sql<{ inputs: string | null }>`
        with verdict_rows (company_id, fraud_type, reported_at, disputed) as (${rows})
        select ${verdictInputsSql('v')}::text as inputs from verdict_rows v`.execute(t.database.db);
      const inputs = result.rows[0]?.inputs;
      const level = verdictOfInputs(inputs ? JSON.parse(inputs) : null, NOW, HALF_LIFE);
      expect(level, name).toBe(verdict(reports, NOW, HALF_LIFE).riskLevel);
    }
  });

  it('search returns distinctCompanies, openDisputes, riskLevel and the dispute of a disputed report', async () => {
    const [a, b, c] = [await createCompany(t), await createCompany(t), await createCompany(t)];
    const phone = localPhone();
    const identifiers = [{ label: 'phone', value: phone }];
    for (let i = 0; i < 3; i++) await createReport(t, a.apiKey, { identifiers, fraudType: 'money_mule' });
    const disputedReport = await createReport(t, b.apiKey, { identifiers, fraudType: 'theft' });
    const operator = await t.app.admin.operators.create({ name: 'Verdict operator' });
    const publicId = await filePublicReport(t, phone, publicBody(phone));
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/public-reports/${publicId}/publish`,
      headers: key(operator.apiKey),
    });

    let summary = (await search(t, c.apiKey, 'phone', phone)).json().data.summary;
    expect(summary).toMatchObject({
      totalReports: 4,
      totalPublicReports: 1,
      distinctCompanies: 2,
      openDisputes: 0,
      riskLevel: 'high',
    });

    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/disputes',
      headers: key(c.apiKey),
      payload: { reportId: disputedReport.id, reason: 'x'.repeat(60) },
    });
    expect(opened.statusCode, opened.body).toBe(201);
    const res = await search(t, c.apiKey, 'phone', phone);
    summary = res.json().data.summary;
    // 1.5 (a, once) + 0.5 (b's theft, disputed) + 0.3 (public) = 2.3
    expect(summary).toMatchObject({ totalReports: 4, distinctCompanies: 2, openDisputes: 1, riskLevel: 'medium' });
    const reports = res.json().data.reports as Array<{ id: string; dispute: unknown }>;
    const { dispute } = opened.json().data;
    expect(reports.find((x) => x.id === disputedReport.id)?.dispute).toEqual({
      status: 'open',
      openedAt: dispute.openedAt,
      respondBy: dispute.respondBy,
    });
    expect(reports.filter((x) => x.id !== disputedReport.id).every((x) => x.dispute === null)).toBe(true);
  });
});
