import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPhone } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport } from './helpers/public-reports.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const WATCHLIST = '/api/v1/external/watchlist';
const MATCHES = `${WATCHLIST}/matches`;
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ config: { jobTickSeconds: 0 } });
});
afterAll(() => t.close());

interface Match {
  type: string;
  watchlistEntry: { id: string; label: string; value: string | null; ref: string | null };
  report: { id: string; kind: string; fraudType: string; reportingCompany: string | null };
}
const matches = async (apiKey: string, query = '') => {
  const res = await t.app.inject({ url: `${MATCHES}${query}`, headers: key(apiKey) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { data: Match[]; meta: { total: number; page: number; limit: number } };
};

describe('a member sees what happened to its watched customers, without a webhook receiver', () => {
  it('lists each report that named one, and its leaving the list, newest first, with the value and reference', async () => {
    const bank = await createCompany(t);
    const reporter = await createCompany(t, { businessName: 'Reporting Microfinance Bank' });
    const [phone, other] = [localPhone(), localPhone()];
    const added = await t.app.inject({
      method: 'POST',
      url: WATCHLIST,
      headers: key(bank.apiKey),
      payload: {
        items: [
          { label: 'phone', value: phone, ref: 'Customer 7' },
          { label: 'phone', value: other },
        ],
      },
    });
    const [entry] = added.json().data.results as Array<{ id: string }>;
    expect((await matches(bank.apiKey)).data).toEqual([]);

    const report = await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const first = await matches(bank.apiKey);
    expect(first.meta).toEqual({ total: 1, page: 1, limit: 20 });
    expect(first.data[0]).toMatchObject({
      type: 'watchlist.match',
      watchlistEntry: { id: entry?.id, label: 'phone', value: `+234${phone.slice(1)}`, ref: 'Customer 7', watching: true },
      report: { id: report.id, kind: 'report', reportingCompany: 'Reporting Microfinance Bank' },
    });
    // The reporter's own list and another member's hold none of it.
    expect((await matches(reporter.apiKey)).data).toEqual([]);

    const exited = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/reports/submissions/${report.id}/exit`,
      headers: key(reporter.apiKey),
      payload: { reason: 'Customer repaid in full and was cleared.' },
    });
    expect(exited.statusCode, exited.body).toBe(200);
    const operator = await createOperator(t);
    const publicId = await filePublicReport(t, other);
    const published = await t.app.inject({ method: 'POST', url: `${ADMIN}/${publicId}/publish`, headers: key(operator.apiKey) });
    expect(published.statusCode, published.body).toBe(200);

    const all = await matches(bank.apiKey);
    expect(all.data.map((m) => [m.type, m.report.kind])).toEqual([
      ['watchlist.match', 'public_report'],
      ['submission.exited', 'report'],
      ['watchlist.match', 'report'],
    ]);
    expect(all.data[0]?.report.reportingCompany).toBeNull();
    const paged = await matches(bank.apiKey, '?page=2&limit=2');
    expect(paged.meta).toEqual({ total: 3, page: 2, limit: 2 });
    expect(paged.data.map((m) => m.type)).toEqual(['watchlist.match']);

    // Each page read is in the trail, with how many it listed.
    const trail = await t.app.inject({ url: '/api/v1/external/audit?action=watchlist_matches_read', headers: key(bank.apiKey) });
    expect(trail.json().data.data.map((row: { resultCount: number }) => row.resultCount)).toEqual([1, 3, 1, 0]);

    // A value that does not open (its token moved to another entry) is null on its row; the page still answers.
    const [, second] = added.json().data.results as Array<{ id: string }>;
    await sql`update watchlist_entries set value_token = (select value_token from watchlist_entries where id = ${entry?.id})
      where id = ${second?.id}`.execute(t.database.db);
    const unreadable = await matches(bank.apiKey);
    expect(unreadable.data[0]?.watchlistEntry).toEqual({
      id: second?.id,
      label: 'phone',
      value: null,
      ref: null,
      watching: true,
    });
    expect(unreadable.data[1]?.watchlistEntry.value).toBe(`+234${phone.slice(1)}`);

    // Stopped watching: the events stay, without the value and reference that left with the entry.
    await t.app.inject({ method: 'DELETE', url: `${WATCHLIST}/${entry?.id}`, headers: key(bank.apiKey) });
    const after = await matches(bank.apiKey);
    expect(after.data.filter((m) => m.watchlistEntry.id === entry?.id).map((m) => m.watchlistEntry)).toEqual([
      { id: entry?.id, label: 'phone', value: null, ref: null, watching: false },
      { id: entry?.id, label: 'phone', value: null, ref: null, watching: false },
    ]);
  });

  it('refuses a page too long with the field named', async () => {
    const bank = await createCompany(t);
    const bad = await t.app.inject({ url: `${MATCHES}?limit=1000`, headers: key(bank.apiKey) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors[0].field).toBe('limit');
  });
});
