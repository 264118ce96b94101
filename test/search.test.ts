import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digits, letters, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { matchesSearchSchema } from './helpers/search-schema.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let a: Awaited<ReturnType<typeof createCompany>>;
let b: Awaited<ReturnType<typeof createCompany>>;

beforeAll(async () => {
  t = await buildTestApp();
  a = await createCompany(t, { businessName: 'Alpha Microfinance Bank' });
  b = await createCompany(t, { businessName: 'Beta Fintech' });
});
afterAll(() => t.close());

const ids = (res: { json(): { data: { reports: Array<{ id: string }> } } }) => res.json().data.reports.map((r) => r.id);

describe('POST /reports/search', () => {
  it("returns every company's published, listed reports with tokens, newest first, and the summary", async () => {
    const phone = localPhone();
    const first = await createReport(t, a.apiKey, {
      identifiers: [{ label: 'phone', value: phone }],
      fraudType: 'hacker',
      userId: 'hidden-user',
    });
    const second = await createReport(t, b.apiKey, {
      identifiers: [
        { label: 'phone', value: phone },
        { label: 'bvn', value: `22${digits(9)}` },
      ],
      fraudType: 'theft',
      userId: 'shown-user',
      showUploaderInfo: true,
    });
    await createReport(t, b.apiKey, { identifiers: [{ label: 'phone', value: phone }], status: 'draft' });

    const res = await search(t, a.apiKey, 'phone', phone);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const body = res.json();
    expect(matchesSearchSchema(body), JSON.stringify(matchesSearchSchema.errors)).toBe(true);
    expect(body.success).toBe(true);
    expect(body.data.publicReports).toEqual([]);
    expect(ids(res)).toEqual([second.id, first.id]);

    const [newest, oldest] = body.data.reports;
    expect(newest).toMatchObject({
      companyId: b.companyId,
      userId: 'shown-user',
      showUploaderInfo: true,
      status: 'published',
      listingStatus: 'listed',
      fraudType: 'theft',
      attachments: [],
      reportingCompany: { businessName: 'Beta Fintech', id: b.companyId },
    });
    expect(oldest.userId).toBeNull();
    expect(newest.identifiers.map((i: { label: string }) => i.label)).toEqual(['phone', 'bvn']);
    for (const identifier of [...newest.identifiers, ...oldest.identifiers]) {
      expect(identifier.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(identifier.value).toMatch(/^v2\.k\d+\.[A-Za-z0-9_-]+$/);
    }
    expect(JSON.stringify(body)).not.toContain(phone.slice(1));
    expect(body.data.summary).toEqual({
      totalReports: 2,
      totalPublicReports: 0,
      fraudTypes: { hacker: 1, theft: 1 },
      firstReportedAt: first.createdAt,
      lastReportedAt: second.createdAt,
      distinctCompanies: 2,
      openDisputes: 0,
      // hacker 1.2 + theft 1.0, two members, fresh: 2.2 (test/verdict.test.ts has the rule's table).
      riskLevel: 'medium',
    });
    expect(newest.dispute).toBeNull();
  });

  it('answers an empty result with empty lists and a zero summary', async () => {
    const res = await search(t, a.apiKey, 'email', `${letters(12)}@nowhere.example`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      reports: [],
      publicReports: [],
      summary: {
        totalReports: 0,
        totalPublicReports: 0,
        fraudTypes: {},
        firstReportedAt: null,
        lastReportedAt: null,
        distinctCompanies: 0,
        openDisputes: 0,
        riskLevel: 'none',
      },
    });
  });

  it('sends text beyond ASCII whole, with a Content-Length in bytes, alone and in a batch', async () => {
    // Two-, three- and four-byte UTF-8: the answer is encoded into a buffer sized beforehand (envelope-bytes.ts).
    const businessName = `Ọ̀yọ́ Àdúnní Microfinance — 𝔸 ${letters(6)}`;
    const company = await createCompany(t, { businessName });
    const bvn = `22${digits(9)}`;
    await createReport(t, company.apiKey, { identifiers: [{ label: 'bvn', value: bvn }] });
    const alone = await search(t, a.apiKey, 'bvn', bvn);
    const batch = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports/search/batch',
      headers: { 'x-api-key': a.apiKey },
      payload: { items: [{ identifier: 'bvn', value: bvn }] },
    });
    for (const res of [alone, batch]) {
      expect(res.statusCode).toBe(200);
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      // The name went out as UTF-8, not as \u escapes: more bytes than characters.
      expect(res.rawPayload.includes(Buffer.from(businessName))).toBe(true);
      expect(res.rawPayload.length).toBeGreaterThan(res.payload.length);
    }
    expect(alone.json().data.reports[0].reportingCompany.businessName).toBe(businessName);
    expect(batch.json().data.results[0].reports[0].reportingCompany.businessName).toBe(businessName);
  });

  it('is also served at /api/v1/external/reports/search, and to an operator key', async () => {
    const bvn = `22${digits(9)}`;
    const report = await createReport(t, a.apiKey, { identifiers: [{ label: 'bvn', value: bvn }] });
    expect(ids(await search(t, b.apiKey, 'bvn', bvn, '/api/v1/external/reports/search'))).toEqual([report.id]);
    const operator = await createOperator(t);
    expect(ids(await search(t, operator.apiKey, 'bvn', bvn))).toEqual([report.id]);
  });

  it('finds a phone written four ways, an e-mail in another case, a BVN with dashes, a name in another order', async () => {
    const local = localPhone();
    const intl = `234${local.slice(1)}`;
    const phoneReport = await createReport(t, a.apiKey, {
      identifiers: [{ label: 'phone', value: `${local.slice(0, 4)} ${local.slice(4, 7)} ${local.slice(7)}` }],
    });
    for (const written of [local, intl, `+234 (${local.slice(1, 4)}) ${local.slice(4, 7)}-${local.slice(7)}`, `+${intl}`]) {
      expect(ids(await search(t, b.apiKey, 'phone', written)), written).toEqual([phoneReport.id]);
    }
    const user = letters(10);
    const emailReport = await createReport(t, a.apiKey, { identifiers: [{ label: 'email', value: `${user}@Example.com` }] });
    expect(ids(await search(t, b.apiKey, 'email', `  ${user.toUpperCase()}@EXAMPLE.COM `))).toEqual([emailReport.id]);
    const bvn = `22${digits(9)}`;
    const bvnReport = await createReport(t, a.apiKey, { identifiers: [{ label: 'bvn', value: bvn }] });
    expect(ids(await search(t, b.apiKey, 'bvn', `${bvn.slice(0, 3)}-${bvn.slice(3, 7)}-${bvn.slice(7)}`))).toEqual([
      bvnReport.id,
    ]);
    // The same 11 digits as a NIN are another identifier.
    expect(ids(await search(t, b.apiKey, 'nin', bvn))).toEqual([]);
    const [first, last] = [letters(7), letters(8)];
    const nameReport = await createReport(t, a.apiKey, {
      identifiers: [{ label: 'account_name', value: `${last.toUpperCase()} ${first}` }],
    });
    expect(ids(await search(t, b.apiKey, 'account_name', `${first}   ${last}`))).toEqual([nameReport.id]);
    const handle = letters(9);
    const handleReport = await createReport(t, a.apiKey, {
      identifiers: [{ label: 'social_handle', value: `@${handle.toUpperCase()}` }],
    });
    expect(ids(await search(t, b.apiKey, 'social_handle', handle))).toEqual([handleReport.id]);
  });

  it('finds an account with its bank, and a bare NUBAN at every bank', async () => {
    const number = nuban('044');
    const access = await createReport(t, a.apiKey, { identifiers: [{ label: 'account', value: `${number}_access-bank` }] });
    // The same ten digits at another bank whose check digit the service cannot verify (a mobile-money operator).
    const opay = await createReport(t, b.apiKey, { identifiers: [{ label: 'account', value: `${number}_opay` }] });
    expect(ids(await search(t, a.apiKey, 'account', `${number}_access-bank`))).toEqual([access.id]);
    expect(ids(await search(t, a.apiKey, 'account', `${number}_opay`))).toEqual([opay.id]);
    expect(ids(await search(t, a.apiKey, 'account', number))).toEqual([opay.id, access.id]);
  });

  it('counts every match in the summary but lists at most 100', async () => {
    const shared = `22${digits(9)}`;
    for (let i = 0; i < 101; i++)
      await createReport(t, i % 2 ? a.apiKey : b.apiKey, { identifiers: [{ label: 'bvn', value: shared }] });
    const res = await search(t, a.apiKey, 'bvn', shared);
    expect(res.json().data.reports).toHaveLength(100);
    expect(res.json().data.summary.totalReports).toBe(101);
  });

  it('refuses an unknown identifier type and a value that cannot be normalised, naming the field', async () => {
    const unknown = await search(t, a.apiKey, 'tin', '123');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().data.errors[0].field).toBe('identifier');
    const bad = await search(t, a.apiKey, 'bvn', '12345');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors).toEqual([{ field: 'value', message: expect.stringContaining('BVN must be 11 digits') }]);
    const extra = await t.app.inject({
      method: 'POST',
      url: '/reports/search',
      headers: key(a.apiKey),
      payload: { identifier: 'bvn', value: digits(11), page: 2 },
    });
    expect(extra.json().data.errors).toEqual([{ field: 'page', message: 'is not an accepted field' }]);
    const empty = await search(t, a.apiKey, 'email', '');
    expect(empty.statusCode).toBe(400);
  });

  it('needs a key', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/reports/search', payload: { identifier: 'bvn', value: digits(11) } });
    expect(res.statusCode).toBe(401);
  });

  it('audits every search with the label, blind index and result count, never the value', async () => {
    const bvn = `22${digits(9)}`;
    await createReport(t, b.apiKey, { identifiers: [{ label: 'bvn', value: bvn }] });
    const res = await search(t, a.apiKey, 'bvn', bvn);
    const rows = await t.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', String(res.headers['x-request-id']))
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'search', company_id: a.companyId, key_id: a.keyId, label: 'bvn', result_count: 1 });
    expect(Buffer.from(rows[0]?.blind_index ?? []).length).toBe(32);
    expect(JSON.stringify(rows)).not.toContain(bvn);
  });

  it('writes the audit rows of concurrent searches together, one statement for several (decision 0097)', async () => {
    const bvn = `22${digits(9)}`;
    await createReport(t, b.apiKey, { identifiers: [{ label: 'bvn', value: bvn }] });
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, n) => search(t, a.apiKey, 'bvn', n % 2 ? bvn : `22${digits(9)}`)),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(40).fill(200));
    const requestIds = responses.map((r) => String(r.headers['x-request-id']));
    // Rows inserted by one statement share its transaction id (xmin).
    const { rows } = await sql<{ request_id: string; result_count: number; tx: string }>`
      select request_id, result_count, xmin::text as tx from audit_events where request_id in (${sql.join(requestIds)})`.execute(
      t.database.db,
    );
    expect(rows).toHaveLength(40);
    const countOf = new Map(rows.map((r) => [r.request_id, r.result_count]));
    expect(requestIds.map((id) => countOf.get(id))).toEqual(requestIds.map((_, n) => (n % 2 ? 1 : 0)));
    expect(new Set(rows.map((r) => r.tx)).size).toBeLessThan(40);
  });
});
