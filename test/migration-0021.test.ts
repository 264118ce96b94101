import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import * as migration0021 from '../src/db/migrations/2026_11_28_0021_reasons_masked_again.js';
import { createCompany } from './helpers/principals.js';
import { uniquePhone } from './helpers/public-reports.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';

// What the rule before this migration stored for such a reason: the bracketed, full-width and
// zero-width-spaced numbers left as written.
const REASON = 'Called from (0803) 555 1234, then ０８０３５５５１２３４ and 0803\u200b5551234; paid 0010246780.';
const OLD_MASK = 'Called from (0803) 555 1234, then ０８０３５５５１２３４ and 0803\u200b5551234; paid ********80.';

describe('migration 0021', () => {
  it("masks again what the earlier rule left in clear, and other companies' searches show it", async () => {
    const t = await buildTestApp();
    try {
      const owner = await createCompany(t);
      const other = await createCompany(t);
      const phone = uniquePhone();
      const report = await createReport(t, owner.apiKey, {
        identifiers: [{ label: 'phone', value: phone }],
        fraudReason: REASON,
      });
      const untouched = await createReport(t, owner.apiKey, { identifiers: [{ label: 'phone', value: uniquePhone() }] });
      const db = t.database.db;
      await sql`update reports set fraud_reason_masked = ${OLD_MASK} where id = ${report.id}`.execute(db);
      const before = await search(t, other.apiKey, 'phone', phone);
      expect(before.json().data.reports[0].fraudReason).toBe(OLD_MASK);

      await migration0021.up(db);

      const after = await search(t, other.apiKey, 'phone', phone);
      expect(after.json().data.reports[0].fraudReason).toBe(
        'Called from *********34, then *********３４ and *********34; paid ********80.',
      );
      expect(after.body).not.toContain('5551234');
      const { rows } = await sql<{ id: string; fraud_reason_masked: string }>`
        select id, fraud_reason_masked from reports where id in (${report.id}, ${untouched.id})`.execute(db);
      expect(rows.find((r) => r.id === untouched.id)?.fraud_reason_masked).toBe(untouched.fraudReason);
      // The owner's own reason is the sealed one, whole.
      const own = await t.app.inject({
        method: 'GET',
        url: `/api/v1/external/reports/submissions/${report.id}`,
        headers: { 'x-api-key': owner.apiKey },
      });
      expect(own.json().data.report.fraudReason).toBe(REASON);
    } finally {
      await t.close();
    }
  });
});
