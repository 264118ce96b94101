import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealClearTexts } from '../src/crypto/seal-clear-texts.js';
import { digits } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

describe('fraud reasons sealed at rest', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { jobTickSeconds: 0 } });
  });
  afterAll(() => t?.close());

  it('stores a new reason only sealed, and shows it whole to its owner', async () => {
    const company = await createCompany(t);
    const reason = `Sent 250,000 naira to ${digits(10)} for a job that did not exist, then was blocked.`;
    const report = await createReport(t, company.apiKey, { fraudReason: reason });
    const { rows } = await sql<{ fraud_reason: string | null; fraud_reason_token: string | null }>`
      select fraud_reason, fraud_reason_token from reports where id = ${report.id}`.execute(t.database.db);
    expect(rows[0]?.fraud_reason).toBeNull();
    expect(rows[0]?.fraud_reason_token).toMatch(/^v\d\./);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${report.id}`,
      headers: key(company.apiKey),
    });
    expect(got.json().data.report.fraudReason).toBe(reason);
  });

  it('seals the reasons an earlier version stored in clear, once, and they still read the same', async () => {
    const company = await createCompany(t);
    const reason = `Old reason naming ${digits(10)}, stored before reasons were sealed, and long enough.`;
    const report = await createReport(t, company.apiKey);
    // As a version before migration 0016 left it.
    await sql`update reports set fraud_reason = ${reason}, fraud_reason_token = null where id = ${report.id}`.execute(
      t.database.db,
    );
    const read = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/external/reports/submissions/${report.id}`,
          headers: key(company.apiKey),
        })
      ).json().data.report.fraudReason;
    expect(await read()).toBe(reason);

    expect(await sealClearTexts(t.database.db, t.app.crypto.keyring)).toBeGreaterThanOrEqual(1);
    const left = await sql<{ n: number }>`
      select count(*)::int as n from reports where fraud_reason is not null`.execute(t.database.db);
    expect(left.rows[0]?.n).toBe(0);
    expect(await read()).toBe(reason);
    expect(await sealClearTexts(t.database.db, t.app.crypto.keyring)).toBe(0);
  });
});
