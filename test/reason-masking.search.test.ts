import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const REASON_WITH_IDENTIFIERS =
  'Victim paid 0803 555 1234 and account 0010246780 (BVN 22133344455); the mule wrote from ada.mule@example.com.';
const MASKED = 'Victim paid *********34 and account ********80 (BVN *********55); the mule wrote from a***@example.com.';

describe('fraudReason shown to others', () => {
  it("is masked in another company's search and kept whole for its owner's get and decode", async () => {
    const owner = await createCompany(t);
    const other = await createCompany(t);
    const phone = uniquePhone();
    const report = await createReport(t, owner.apiKey, {
      identifiers: [{ label: 'phone', value: phone }],
      fraudReason: REASON_WITH_IDENTIFIERS,
    });
    const found = await search(t, other.apiKey, 'phone', phone);
    expect(found.json().data.reports[0].fraudReason).toBe(MASKED);
    expect(found.body).not.toContain('5551234');
    expect(found.body).not.toContain('ada.mule');

    for (const suffix of ['', '/decode']) {
      const own = await t.app.inject({
        method: 'GET',
        url: `/api/v1/external/reports/submissions/${report.id}${suffix}`,
        headers: key(owner.apiKey),
      });
      expect(own.json().data.fraudReason ?? own.json().data.report?.fraudReason).toBe(REASON_WITH_IDENTIFIERS);
    }
  });

  it('masks a draft edited before publishing too, and published public reports', async () => {
    const owner = await createCompany(t);
    const operator = await createOperator(t);
    const phone = uniquePhone();
    const draft = await createReport(t, owner.apiKey, { identifiers: [{ label: 'phone', value: phone }], status: 'draft' });
    const headers = key(owner.apiKey);
    const url = `/api/v1/external/reports/submissions/${draft.id}`;
    expect(
      (await t.app.inject({ method: 'PATCH', url, headers, payload: { fraudReason: REASON_WITH_IDENTIFIERS } })).statusCode,
    ).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: `${url}/publish`, headers })).statusCode).toBe(200);

    const publicId = await filePublicReport(t, phone, { fraudReason: REASON_WITH_IDENTIFIERS });
    expect(
      (await t.app.inject({ method: 'POST', url: `${ADMIN}/${publicId}/publish`, headers: key(operator.apiKey) })).statusCode,
    ).toBe(200);

    const data = (await search(t, owner.apiKey, 'phone', phone)).json().data;
    expect(data.reports[0].fraudReason).toBe(MASKED);
    expect(data.publicReports[0].fraudReason).toBe(MASKED);
    // The operator moderating the public report reads it whole.
    const moderated = await t.app.inject({ method: 'GET', url: `${ADMIN}/${publicId}`, headers: key(operator.apiKey) });
    expect(JSON.stringify(moderated.json().data)).toContain(REASON_WITH_IDENTIFIERS);
  });
});
