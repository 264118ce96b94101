import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPhone } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { createReport, reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
let operator: Awaited<ReturnType<typeof createOperator>>;
const SAFELIST = '/api/v1/admin/safelist';
const SUBMISSIONS = '/api/v1/external/reports/submissions';

beforeAll(async () => {
  t = await buildTestApp({ config: { jobTickSeconds: 0 } });
  company = await createCompany(t);
  operator = await createOperator(t);
});
afterAll(() => t.close());

async function safelistPhone(phone: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: SAFELIST,
    headers: key(operator.apiKey),
    payload: { label: 'phone', value: phone, reason: 'The registry test line, never a fraudster' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const create = (payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/v1/external/reports', headers: key(company.apiKey), payload });

describe('the safelist', () => {
  it('lists existing reports carrying a new entry for review without touching them, and stores no value', async () => {
    const phone = localPhone();
    const existing = await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const added = await safelistPhone(phone);
    expect(added.reportsToReview).toEqual([
      {
        id: existing.id,
        companyId: company.companyId,
        kind: 'report',
        status: 'published',
        listingStatus: 'listed',
        reference: null,
      },
    ]);
    const read = await t.app.inject({ url: `${SUBMISSIONS}/${existing.id}`, headers: key(company.apiKey) });
    expect(read.json().data.report.listingStatus).toBe('listed');
    const list = await t.app.inject({ url: SAFELIST, headers: key(operator.apiKey) });
    expect(list.json().data.entries.map((e: { id: string }) => e.id)).toContain(added.entry.id);
    expect(list.body).not.toContain(phone.slice(1));
    const again = await t.app.inject({
      method: 'POST',
      url: SAFELIST,
      headers: key(operator.apiKey),
      payload: { label: 'phone', value: phone, reason: 'The registry test line, twice' },
    });
    expect(again.statusCode).toBe(409);
    expect((await t.app.inject({ url: SAFELIST, headers: key(company.apiKey) })).statusCode).toBe(403);
  });

  it('refuses a create with a safelisted identifier (written another way) with 422 naming the field', async () => {
    const phone = localPhone();
    await safelistPhone(phone);
    const res = await create(
      reportBody({
        identifiers: [
          { label: 'email', value: `ok-${Date.now()}@example.com` },
          { label: 'phone', value: `+234${phone.slice(1)}` },
        ],
      }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().data).toMatchObject({
      code: 'IDENTIFIER_SAFELISTED',
      errors: [{ field: 'identifiers/1/value' }],
    });
    expect(res.body).not.toContain(phone.slice(1));
    // A draft too.
    expect((await create(reportBody({ status: 'draft', identifiers: [{ label: 'phone', value: phone }] }))).statusCode).toBe(422);
  });

  it('refuses a draft edit and a publish once the identifier is safelisted; removing the entry allows them again', async () => {
    const phone = localPhone();
    const draft = await createReport(t, company.apiKey, { status: 'draft', identifiers: [{ label: 'phone', value: phone }] });
    const other = localPhone();
    const { entry } = await safelistPhone(other);
    const edit = await t.app.inject({
      method: 'PATCH',
      url: `${SUBMISSIONS}/${draft.id}`,
      headers: key(company.apiKey),
      payload: { identifiers: [{ label: 'phone', value: other }] },
    });
    expect(edit.statusCode).toBe(422);
    expect(edit.json().data.errors[0].field).toBe('identifiers/0/value');

    await safelistPhone(phone);
    const publish = await t.app.inject({
      method: 'POST',
      url: `${SUBMISSIONS}/${draft.id}/publish`,
      headers: key(company.apiKey),
    });
    expect(publish.statusCode).toBe(422);
    expect(publish.json().data).toMatchObject({ code: 'IDENTIFIER_SAFELISTED', errors: [{ field: 'identifiers/0/value' }] });

    const removed = await t.app.inject({ method: 'DELETE', url: `${SAFELIST}/${entry.id}`, headers: key(operator.apiKey) });
    expect(removed.statusCode).toBe(200);
    const retry = await t.app.inject({
      method: 'PATCH',
      url: `${SUBMISSIONS}/${draft.id}`,
      headers: key(company.apiKey),
      payload: { identifiers: [{ label: 'phone', value: other }] },
    });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: `${SUBMISSIONS}/${draft.id}/publish`, headers: key(company.apiKey) }))
        .statusCode,
    ).toBe(200);
  });

  it('refuses to publish a public report with a safelisted identifier, and lists it for review when the entry is added', async () => {
    const phone = uniquePhone();
    const id = await filePublicReport(t, phone);
    const added = await safelistPhone(phone);
    expect(added.reportsToReview).toEqual([
      // The reference its filer holds, by which the moderation page finds it.
      expect.objectContaining({
        id,
        kind: 'public_report',
        status: 'draft',
        reference: `${id.slice(0, 4)}-${id.slice(4, 8)}`.toUpperCase(),
      }),
    ]);
    const publish = await t.app.inject({ method: 'POST', url: `${ADMIN}/${id}/publish`, headers: key(operator.apiKey) });
    expect(publish.statusCode).toBe(422);
    expect(publish.json().data).toMatchObject({ code: 'IDENTIFIER_SAFELISTED', errors: [{ field: 'identifiers/0/value' }] });
  });
});
