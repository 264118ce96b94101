import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digits, letters, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';
import { engine } from './helpers/test-database.js';

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('clear values at rest and in the logs', () => {
  it('leaves no identifier value or API key in the data directory or the log after real requests', async () => {
    const t = await buildTestApp({ config: { logLevel: 'trace' } });
    const company = await createCompany(t);
    const account = nuban('058');
    const values = {
      account: `${account}_guaranty-trust-bank`,
      bvn: `22${digits(9)}`,
      nin: `7${digits(10)}`,
      phone: localPhone(),
      email: `${letters(11)}@example.com`,
      account_name: `${letters(9)} ${letters(10)}`,
      social_handle: letters(13),
      international_passport: `A${digits(8)}`,
      drivers_license: `${letters(3).toUpperCase()}${digits(5)}AA${digits(2)}`,
    };
    const report = await createReport(t, company.apiKey, {
      identifiers: Object.entries(values).map(([label, value]) => ({ label, value })),
    });
    for (const [label, value] of Object.entries(values)) {
      expect((await search(t, company.apiKey, label, value)).json().data.summary.totalReports).toBe(1);
    }
    const decoded = await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${report.id}/decode`,
      headers: key(company.apiKey),
    });
    expect(decoded.statusCode).toBe(200);
    // A failing request's log lines too: the bad value must not be echoed.
    await search(t, company.apiKey, 'bvn', `${values.bvn}9`);
    await t.close({ keepFiles: true });

    // What is looked for: each clear value as sent and as normalised (the distinctive part).
    const needles = [
      account,
      values.bvn,
      values.nin,
      values.phone.slice(1),
      values.email,
      ...values.account_name.split(' '),
      values.social_handle,
      values.international_passport,
      values.drivers_license,
      company.apiKey,
    ];
    const logText = t.logLines.join('\n');
    expect(t.logLines.length).toBeGreaterThan(20);
    for (const needle of needles) expect(logText, `log contains ${needle}`).not.toContain(needle);

    if (engine === 'embedded') {
      const files = filesUnder(t.database.dataDir);
      expect(files.length).toBeGreaterThan(100);
      const bytes = files.map((file) => [file, fs.readFileSync(file)] as const);
      for (const needle of needles) {
        for (const [file, content] of bytes) {
          expect(content.includes(needle), `${path.relative(t.database.dataDir, file)} contains ${needle}`).toBe(false);
        }
      }
      // The scan can see text: the company's business name is stored in clear and is found.
      expect(bytes.some(([, content]) => content.includes(company.businessName))).toBe(true);
      fs.rmSync(t.database.dataDir, { recursive: true, force: true });
    }
  });
});
