import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMMON_REPEATS,
  checkedBanks,
  commonLabel,
  createSearchPicker,
  identifierValue,
  Namespace,
  reportIdentifiers,
  reportState,
  SEED_COMPANIES,
} from '../src/bench/population.js';
import { type SeedResult, seedPopulation } from '../src/bench/seed.js';
import { normalizeIdentifier, shippedBankDirectory } from '../src/identifiers/normalize.js';
import { key } from './helpers/principals.js';
import { search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const directory = shippedBankDirectory();
const banks = checkedBanks(directory);

let t: TestApp;
let seeded: SeedResult;
let progress: number[];

beforeAll(async () => {
  t = await buildTestApp();
  progress = [];
  seeded = await seedPopulation({
    db: t.database.db,
    crypto: t.app.crypto,
    identifiers: 2_000,
    batchSize: 100,
    onProgress: (done) => progress.push(done),
  });
});
afterAll(() => t.close());

const visible = (report: number) => {
  const state = reportState(report);
  return state.status === 'published' && state.listingStatus === 'listed';
};

/** The seeded report found by its last identifier (always one of its own). */
async function findByLastIdentifier(report: number) {
  const inputs = reportIdentifiers(seeded.shape, report, banks);
  const last = inputs.at(-1);
  if (!last) throw new Error('a report without identifiers');
  const company = seeded.companies[report % seeded.companies.length];
  if (!company) throw new Error('no company');
  const res = await search(t, company.apiKey, last.label, last.value);
  return { inputs, company, res };
}

describe('seedPopulation', () => {
  it('writes the planned population through the sealing code, reporting progress per batch', async () => {
    expect(seeded.reports).toBe(600);
    expect(seeded.identifiers).toBe(2_000);
    expect(seeded.companies).toHaveLength(SEED_COMPANIES);
    const counts = await sql<{ reports: number; identifiers: number }>`
      select (select count(*) from reports) as reports, (select count(*) from report_identifiers) as identifiers`.execute(
      t.database.db,
    );
    expect(counts.rows[0]).toEqual({ reports: 600, identifiers: 2_000 });
    expect(progress.at(-1)).toBe(600);
    expect(progress).toHaveLength(6);
    // Every value is stored sealed: no clear value is in the table.
    const sample = reportIdentifiers(seeded.shape, 5, banks)[0];
    const clear = await sql<{ n: number }>`
      select count(*) as n from report_identifiers where value_token like ${`%${sample?.value.slice(0, 8)}%`}`.execute(
      t.database.db,
    );
    expect(clear.rows[0]?.n).toBe(0);
  });

  it('gives seeded companies keys whose company limit is raised, with the limiter still on', async () => {
    const company = seeded.companies[0];
    if (!company) throw new Error('no company');
    const res = await search(t, company.apiKey, 'bvn', '22200000000');
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('1000000');
  });

  it('finds a unique identifier in exactly its report, which its company decodes to the values seeded', async () => {
    for (const report of [0, 1, 137, 599]) {
      if (!visible(report)) continue;
      const { inputs, company, res } = await findByLastIdentifier(report);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.data.summary.totalReports).toBe(1);
      const found = body.data.reports[0];
      expect(found.companyId).toBe(company.companyId);
      expect(found.identifiers.map((i: { label: string }) => i.label)).toEqual(inputs.map((i) => i.label));

      const decoded = await t.app.inject({
        method: 'GET',
        url: `/api/v1/external/reports/submissions/${found.id}/decode`,
        headers: key(company.apiKey),
      });
      expect(decoded.statusCode).toBe(200);
      const expected = inputs.map((input) => {
        const normalized = normalizeIdentifier(input.label, input.value, { banks: directory, purpose: 'store' });
        if (!normalized.ok) throw new Error(normalized.message);
        return { label: input.label, value: normalized.value };
      });
      expect(
        decoded.json().data.report.identifiers.map(({ label, value }: { label: string; value: string }) => ({ label, value })),
      ).toEqual(expected);
    }
  });

  it('finds a common identifier in every visible report that carries it, and misses what was never stored', async () => {
    const { shape } = seeded;
    const company = seeded.companies[2];
    if (!company) throw new Error('no company');
    for (let common = 0; common < shape.common; common++) {
      const carriers = Array.from({ length: COMMON_REPEATS }, (_, j) => common + j * shape.commonStride);
      const label = commonLabel(common);
      const res = await search(t, company.apiKey, label, identifierValue(label, Namespace.common, common, banks));
      expect(res.statusCode).toBe(200);
      expect(res.json().data.summary.totalReports).toBe(carriers.filter(visible).length);
    }
    const picker = createSearchPicker(shape, banks, 11);
    for (let i = 0; i < 20; i++) {
      const miss = picker.miss();
      const res = await search(t, company.apiKey, miss.identifier, miss.value);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.summary.totalReports).toBe(0);
    }
    for (let i = 0; i < 20; i++) {
      const hit = picker.unique();
      const res = await search(t, company.apiKey, hit.identifier, hit.value);
      expect(res.json().data.summary.totalReports).toBe(1);
      const common = picker.common();
      const many = await search(t, company.apiKey, common.identifier, common.value);
      expect(many.json().data.summary.totalReports).toBeGreaterThan(1);
    }
  });

  // Last: it rewrites the cards' table. Written twice, a card leaves a dead row behind it, and the
  // table took 1.6 times the pages a rewrite packs it into (199 against 126). Written once, it is
  // packed but for the last page each of the two writers was filling.
  it('writes every report its card once, the entry the report has now', async () => {
    const db = t.database.db;
    const stale = await sql<{ n: number }>`
      select count(*)::int as n from reports p left join report_cards rc on rc.report_id = p.id
      where rc.card is distinct from report_card(p.id)`.execute(db);
    expect(stale.rows[0]?.n).toBe(0);
    const pages = async () =>
      (await sql<{ n: number }>`select (pg_relation_size('report_cards') / 8192)::int as n`.execute(db)).rows[0]?.n ?? 0;
    const seededPages = await pages();
    await sql`vacuum full report_cards`.execute(db);
    expect(seededPages).toBeLessThanOrEqual((await pages()) * 1.1 + 2);
  });
});
