import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeTextError, visibleLength } from '../src/modules/trimmed-text.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

// Free text is shown to other members: a reason must say something a reader can see, and read as
// it is written.
describe('free text a reader sees', () => {
  it('counts only what can be seen, and refuses control and text-direction characters', () => {
    // Zero-width characters do not count; spaces and line breaks between words do, as they always did.
    expect(visibleLength('a\u200Bb \u00A0c\u2060\n')).toBe(6);
    expect(visibleLength('\u200B \u200B\n\u3000')).toBe(0);
    expect(freeTextError('reason', 'Paid back in full', 17)).toBeUndefined();
    expect(freeTextError('reason', 'Funds recovered in full.', 10)).toBeUndefined();
    expect(freeTextError('reason', 'Line one.\r\n\tLine two.', 10)).toBeUndefined();
    expect(freeTextError('reason', '\u200B'.repeat(12), 10)).toEqual({
      field: 'reason',
      message: 'must be at least 10 characters you can see (it has 0; spaces and invisible characters do not count)',
    });
    expect(freeTextError('reason', `Paid back\u0007 in full`, 10)?.message).toBe(
      'contains a control character (U+0007), often left by copying from another program: remove it',
    );
    expect(freeTextError('reason', '\u202Edetaehc ton saw I', 10)?.message).toBe(
      'contains a text-direction control (U+202E), which makes text read differently from what it holds: remove it',
    );
    expect(freeTextError('reason', 'short', 10)?.message).toBe(
      'must be at least 10 characters, not counting spaces at either end',
    );
  });

  describe('over HTTP', () => {
    let t: TestApp;
    let company: Awaited<ReturnType<typeof createCompany>>;
    beforeAll(async () => {
      t = await buildTestApp();
      company = await createCompany(t);
    });
    afterAll(() => t.close());

    it('refuses a fraud reason of invisible characters, naming the field; the report is not filed', async () => {
      for (const [fraudReason, message] of [
        ['\u200B'.repeat(60), /characters you can see \(it has 0;/],
        ['\u0007'.repeat(60), /control character \(U\+0007\)/],
        [`\u202E${'a'.repeat(59)}`, /text-direction control \(U\+202E\)/],
      ] as const) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/external/reports',
          headers: key(company.apiKey),
          payload: reportBody({ fraudReason }),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().data.errors).toEqual([{ field: 'fraudReason', message: expect.stringMatching(message) }]);
      }
      const list = await t.app.inject({ url: '/api/v1/external/reports/submissions', headers: key(company.apiKey) });
      expect(list.json().data.meta.total).toBe(0);
    });

    it('refuses a company name that cannot be seen or reads backwards', async () => {
      const operator = await createOperator(t);
      for (const businessName of ['\u202E', '\u200B\u200B', `\u202EKNAB`]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/admin/companies',
          headers: key(operator.apiKey),
          payload: { businessName },
        });
        expect(res.statusCode, businessName).toBe(400);
        expect(res.json().data.errors[0].field).toBe('businessName');
      }
    });
  });
});
