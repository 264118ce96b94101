import { describe, expect, it } from 'vitest';
import * as migration0032 from '../src/db/migrations/2026_11_29_0032_people_texts_sealed.js';
import * as migration0033 from '../src/db/migrations/2026_11_29_0033_password_links.js';
import { createCompany, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';

describe('migrations 0032 and 0033 undone', () => {
  it('go down and up again on a registry with no sealed text; 0032 refuses once a text is sealed', async () => {
    const t = await buildTestApp();
    try {
      const db = t.database.db;
      await migration0033.down(db);
      await migration0032.down(db);
      await migration0032.up(db);
      await migration0033.up(db);

      const company = await createCompany(t);
      const report = await createReport(t, company.apiKey);
      const exited = await t.app.inject({
        method: 'POST',
        url: `/api/v1/external/reports/submissions/${report.id}/exit`,
        headers: key(company.apiKey),
        payload: { reason: 'Repaid in full and cleared by our fraud desk.' },
      });
      expect(exited.statusCode, exited.body).toBe(200);
      await expect(migration0032.down(db)).rejects.toThrow(/would lose them/);
      // Still in place, and still read.
      const read = await t.app.inject({
        url: `/api/v1/external/reports/submissions/${report.id}`,
        headers: key(company.apiKey),
      });
      expect(read.json().data.report.exitListReason).toBe('Repaid in full and cleared by our fraud desk.');
    } finally {
      await t.close();
    }
  });
});
