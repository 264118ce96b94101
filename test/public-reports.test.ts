import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nubanCheckDigit } from '../src/identifiers/nuban.js';
import { PUBLIC_REPORTS_COMPANY_ID } from '../src/modules/companies/public-reports-company.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import {
  ADMIN,
  filePublicReport,
  intake as intakeAs,
  nextAddress,
  publicBody,
  uniquePhone,
  yesterday,
} from './helpers/public-reports.js';
import { createReport, REASON, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { pathOf, samples, uploadedUrl, uploadFile } from './helpers/uploads.js';

let t: TestApp;
let operator: Awaited<ReturnType<typeof createOperator>>;
let searcher: Awaited<ReturnType<typeof createCompany>>;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await createOperator(t);
  searcher = await createCompany(t);
});
afterAll(() => t.close());

const intake = (payload: Record<string, unknown>, remoteAddress?: string) => intakeAs(t, payload, remoteAddress);
const file = (phone: string, overrides: Record<string, unknown> = {}) => filePublicReport(t, phone, overrides);
const asOperator = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>, apiKey = operator.apiKey) =>
  t.app.inject({ method, url, headers: key(apiKey), ...(payload ? { payload } : {}) });

describe('POST /api/v1/public/reports', () => {
  it('takes a report without a key and stores it as a draft of the Public reports company, contacts sealed', async () => {
    const res = await intake(publicBody(uniquePhone()));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      success: true,
      message: expect.any(String),
      data: { id: expect.any(String), reference: expect.stringMatching(/^[0-9A-F]{4}-[0-9A-F]{4}$/), status: 'draft' },
    });
    const row = await t.database.db
      .selectFrom('public_reports')
      .selectAll()
      .where('id', '=', res.json().data.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      company_id: PUBLIC_REPORTS_COMPANY_ID,
      status: 'draft',
      financial_institution: 'Access Bank',
      victim_masked: {
        name: 'J*** D***',
        email: 'j***@example.com',
        phone: '+234****67',
        amountLost: 250000,
        currency: 'NGN',
      },
      guest_info_masked: { name: 'O*** A***', email: 'o***@example.org', phone: '+234****32' },
    });
    for (const token of [row.victim_token, row.guest_info_token]) {
      expect(token).toMatch(/^v2\.k\d+\./);
      expect(token).not.toContain('example');
      expect(token).not.toContain('8031234567');
    }
    const identifier = await t.database.db
      .selectFrom('public_report_identifiers')
      .selectAll()
      .where('public_report_id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(identifier.value_token).toMatch(/^v2\./);
    expect(identifier.company_id).toBe(PUBLIC_REPORTS_COMPANY_ID);
  });

  it('needs only the required fields', async () => {
    const { victim: _v, guestInfo: _g, ...bare } = publicBody(uniquePhone());
    expect((await intake(bare)).statusCode).toBe(201);
  });

  it.each([
    ['an unknown field', { note: 'x' }, 'note'],
    ['an unknown victim field', { victim: { name: 'A', bvn: '22212345678' } }, 'victim/bvn'],
    ['a reason under 50 characters after trimming', { fraudReason: `   ${'x'.repeat(49)}          ` }, 'fraudReason'],
    ['a date in the future', { eventDate: new Date(Date.now() + 3 * 86_400_000).toISOString() }, 'eventDate'],
    ['a date that is no date', { eventDate: '22/11/2026' }, 'eventDate'],
    ['no identifiers', { identifiers: [] }, 'identifiers'],
    ['an identifier that does not normalise', { identifiers: [{ label: 'bvn', value: '123' }] }, 'identifiers/0/value'],
    ['a victim e-mail that is no address', { victim: { email: 'jane at example' } }, 'victim/email'],
    ['a guest phone that is no number', { guestInfo: { phone: '0803 123' } }, 'guestInfo/phone'],
    ['an unknown reporting entity', { reportingEntity: 'bank' }, 'reportingEntity'],
    ['an empty victim', { victim: {} }, 'victim'],
  ])('refuses %s with 400 naming the field', async (_name, overrides, field) => {
    const res = await intake(publicBody(uniquePhone(), overrides));
    expect(res.statusCode).toBe(400);
    expect(res.json().data.code).toBe('VALIDATION_FAILED');
    expect(res.json().data.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('tells a short contact phone or e-mail what it is not, not how many characters it lacks', async () => {
    const res = await intake(publicBody(uniquePhone(), { victim: { phone: 'abc', email: 'a@' }, guestInfo: { phone: '12' } }));
    expect(res.statusCode).toBe(400);
    const errors = res.json().data.errors as Array<{ field: string; message: string }>;
    expect(errors.map((e) => e.field).sort()).toEqual(['guestInfo/phone', 'victim/email', 'victim/phone']);
    for (const e of errors) expect(e.message, e.field).not.toMatch(/at least \d+ characters/);
  });

  it('says what a pattern wants in words, with an example, not that the value "has an invalid format"', async () => {
    const res = await intake(
      publicBody(uniquePhone(), { financialInstitution: '   ', victim: { amountLost: 5000, currency: 'ngn' } }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([
      { field: 'financialInstitution', message: 'must not be only spaces' },
      { field: 'victim/currency', message: 'must be a three-letter currency code in capitals, such as NGN' },
    ]);
  });

  it('names every mistake in one answer: the schema’s and the values’ (a phone, a date, an e-mail)', async () => {
    const res = await intake(
      publicBody('12', {
        fraudType: 'not_a_kind',
        eventDate: '2999-01-01',
        victim: { email: 'not an address', phone: '0803 123 4567' },
      }),
    );
    expect(res.statusCode).toBe(400);
    const fields = res.json().data.errors.map((e: { field: string }) => e.field);
    // The schema's error, and the ones it used to hide until the next try.
    expect(fields).toEqual(['fraudType', 'identifiers/0/value', 'eventDate', 'victim/email']);
    expect(res.json().data.errors[2].message).toBe('must not be in the future');
    // A list longer than a report may hold is refused for its length alone: its values are not worked through.
    const many = await intake(
      publicBody('12', { identifiers: Array.from({ length: 500 }, () => ({ label: 'phone', value: '12' })) }),
    );
    expect(many.json().data.errors).toEqual([{ field: 'identifiers', message: 'must have at most 20 items' }]);
    const old = await intake(publicBody(uniquePhone(), { eventDate: '1800-01-01' }));
    expect(old.json().data.errors).toEqual([{ field: 'eventDate', message: 'must be in 1900 or later' }]);
  });

  it('limits each client address to 10 reports an hour, then answers 429 with Retry-After', async () => {
    const from = '203.0.113.77';
    for (let i = 0; i < 10; i++) {
      const res = await intake(publicBody(uniquePhone()), from);
      expect(res.statusCode).toBe(201);
      expect(res.headers['ratelimit-limit']).toBe('10');
    }
    const limited = await intake(publicBody(uniquePhone()), from);
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.json()).toMatchObject({
      success: false,
      message: expect.stringContaining('10 requests an hour'),
      data: { code: 'RATE_LIMITED', retryAfter },
    });
    expect((await intake(publicBody(uniquePhone()), '203.0.113.78')).statusCode).toBe(201);
  });

  it('does not count a refused report against the address: a person correcting the form keeps their allowance', async () => {
    const limited = await buildTestApp({ config: { publicReportsPerHour: 2 } });
    try {
      const send = (body: object) =>
        limited.app.inject({ method: 'POST', url: '/api/v1/public/reports', remoteAddress: '198.51.100.9', payload: body });
      for (let i = 0; i < 3; i++)
        expect((await send(publicBody(uniquePhone(), { eventDate: '22/11/2026' }))).statusCode).toBe(400);
      const first = await send(publicBody(uniquePhone()));
      expect(first.statusCode).toBe(201);
      expect(first.headers['ratelimit-remaining']).toBe('1');
      expect((await send(publicBody(uniquePhone()))).statusCode).toBe(201);
      expect((await send(publicBody(uniquePhone()))).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('still caps every attempt, refused ones included, at six times the limit', async () => {
    const limited = await buildTestApp({ config: { publicReportsPerHour: 2 } });
    try {
      const send = (body: object) =>
        limited.app.inject({ method: 'POST', url: '/api/v1/public/reports', remoteAddress: '198.51.100.10', payload: body });
      for (let i = 0; i < 12; i++)
        expect((await send(publicBody(uniquePhone(), { eventDate: '22/11/2026' }))).statusCode).toBe(400);
      const capped = await send(publicBody(uniquePhone()));
      expect(capped.statusCode).toBe(429);
      expect(capped.json()).toMatchObject({
        message: expect.stringContaining('Too many attempts'),
        data: { code: 'RATE_LIMITED' },
      });
      expect(Number(capped.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('counts the client behind a trusted proxy by X-Forwarded-For, and ignores the header otherwise', async () => {
    const viaProxy = (app: TestApp, client: string) =>
      app.app.inject({
        method: 'POST',
        url: '/api/v1/public/reports',
        remoteAddress: '10.0.0.2',
        headers: { 'x-forwarded-for': client },
        payload: publicBody(uniquePhone()),
      });
    const behindProxy = await buildTestApp({ config: { trustProxy: ['10.0.0.2'], publicReportsPerHour: 1 } });
    try {
      expect((await viaProxy(behindProxy, '198.51.100.1')).statusCode).toBe(201);
      expect((await viaProxy(behindProxy, '198.51.100.1')).statusCode).toBe(429);
      expect((await viaProxy(behindProxy, '198.51.100.2')).statusCode).toBe(201);
    } finally {
      await behindProxy.close();
    }
    // Without trust, a forged header does not buy a fresh allowance.
    const direct = await buildTestApp({ config: { publicReportsPerHour: 1 } });
    try {
      expect((await viaProxy(direct, '198.51.100.1')).statusCode).toBe(201);
      expect((await viaProxy(direct, '198.51.100.2')).statusCode).toBe(429);
    } finally {
      await direct.close();
    }
  });
});

describe('public reports in search', () => {
  it('are not found as drafts, are found once published, with masked contacts and encrypted identifiers', async () => {
    const phone = uniquePhone();
    const id = await file(phone);
    const draft = await search(t, searcher.apiKey, 'phone', phone);
    expect(draft.json().data.publicReports).toEqual([]);
    expect(draft.json().data.summary).toMatchObject({ totalReports: 0, totalPublicReports: 0 });

    const published = await asOperator('POST', `${ADMIN}/${id}/publish`);
    expect(published.statusCode).toBe(200);
    expect(published.json().data.report).toMatchObject({ id, status: 'published', moderatedAt: expect.any(String) });

    const found = await search(t, searcher.apiKey, 'phone', phone);
    expect(found.statusCode).toBe(200);
    const [report] = found.json().data.publicReports;
    expect(report).toEqual({
      id,
      userId: null,
      fraudReason: REASON,
      fraudType: 'romance_fraud',
      attachments: [],
      financialInstitution: 'Access Bank',
      eventDate: `${yesterday()}T00:00:00.000Z`,
      companyId: PUBLIC_REPORTS_COMPANY_ID,
      notificationSent: false,
      status: 'published',
      victim: { name: 'J*** D***', email: 'j***@example.com', phone: '+234****67', amountLost: 250000, currency: 'NGN' },
      guestInfo: { name: 'O*** A***', email: 'o***@example.org', phone: '+234****32' },
      reportingEntity: 'self',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      identifiers: [{ id: expect.any(String), label: 'phone', value: expect.stringMatching(/^v2\.k\d+\./) }],
    });
    expect(found.body).not.toContain('jane.doe@example.com');
    expect(found.body).not.toContain('8031234567');
  });

  it('count in the summary beside company reports', async () => {
    const phone = uniquePhone();
    const company = await createCompany(t);
    await createReport(t, company.apiKey, { fraudType: 'money_mule', identifiers: [{ label: 'phone', value: phone }] });
    for (const fraudType of ['romance_fraud', 'money_mule']) {
      const id = await file(phone, { fraudType });
      await asOperator('POST', `${ADMIN}/${id}/publish`);
    }
    await file(phone); // a draft: not counted
    const res = await search(t, searcher.apiKey, 'phone', phone);
    const { reports, publicReports, summary } = res.json().data;
    expect(reports).toHaveLength(1);
    expect(publicReports).toHaveLength(2);
    expect(publicReports[0].createdAt >= publicReports[1].createdAt).toBe(true);
    expect(summary).toEqual({
      totalReports: 1,
      totalPublicReports: 2,
      fraudTypes: { money_mule: 2, romance_fraud: 1 },
      firstReportedAt: reports[0].createdAt,
      lastReportedAt: publicReports[0].createdAt,
      // Public reports are not member companies, and count less: 1.5 + (1 + 1.5) × 0.3 = 2.25.
      distinctCompanies: 1,
      openDisputes: 0,
      riskLevel: 'medium',
    });
    const audit = await t.database.db
      .selectFrom('audit_events')
      .select('result_count')
      .where('action', '=', 'search')
      .where('company_id', '=', searcher.companyId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit.result_count).toBe(3);
  });

  it('are found by a bare account number across banks, like company reports', async () => {
    const serialDigits = uniquePhone().slice(-9);
    const nuban = `${serialDigits}${nubanCheckDigit('044', serialDigits)}`;
    const id = await file(uniquePhone(), { identifiers: [{ label: 'account', value: `${nuban}_access-bank` }] });
    await asOperator('POST', `${ADMIN}/${id}/publish`);
    const res = await search(t, searcher.apiKey, 'account', nuban);
    expect(res.json().data.publicReports.map((r: { id: string }) => r.id)).toEqual([id]);
  });

  it('are never found once rejected, whether rejected as a draft or taken down after publishing', async () => {
    const phone = uniquePhone();
    const draft = await file(phone);
    const rejected = await asOperator('POST', `${ADMIN}/${draft}/reject`, { reason: 'Duplicate of an earlier report' });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json().data.report).toMatchObject({ status: 'rejected', rejectionReason: 'Duplicate of an earlier report' });
    expect((await asOperator('POST', `${ADMIN}/${draft}/publish`)).statusCode).toBe(409);

    const later = await file(phone);
    await asOperator('POST', `${ADMIN}/${later}/publish`);
    expect((await search(t, searcher.apiKey, 'phone', phone)).json().data.publicReports).toHaveLength(1);
    expect((await asOperator('POST', `${ADMIN}/${later}/reject`, { reason: 'Reporter withdrew the claim' })).statusCode).toBe(
      200,
    );
    const after = await search(t, searcher.apiKey, 'phone', phone);
    expect(after.json().data.publicReports).toEqual([]);
    expect(after.json().data.summary.totalPublicReports).toBe(0);
  });

  it('carry public evidence files as signed links; a company upload URL is refused', async () => {
    const phone = uniquePhone();
    const bytes = samples.png();
    const upload = await uploadFile(t, undefined, bytes, { url: '/api/v1/public/uploads', remoteAddress: nextAddress() });
    const companyUrl = await uploadedUrl(t, searcher.apiKey);
    const refused = await intake(publicBody(phone, { attachments: [companyUrl] }));
    expect(refused.statusCode).toBe(400);
    expect(refused.json().data.errors).toEqual([
      { field: 'attachments/0', message: 'must be a URL returned by POST /api/v1/public/uploads' },
    ]);

    const id = await file(phone, { attachments: [upload.json().data.url] });
    const reused = await intake(publicBody(phone, { attachments: [upload.json().data.url] }));
    expect(reused.json().data.errors).toEqual([{ field: 'attachments/0', message: expect.stringContaining('already attached') }]);
    await asOperator('POST', `${ADMIN}/${id}/publish`);
    const [report] = (await search(t, searcher.apiKey, 'phone', phone)).json().data.publicReports;
    expect(report.attachments).toHaveLength(1);
    const downloaded = await t.app.inject({ method: 'GET', url: pathOf(report.attachments[0]) });
    expect(downloaded.statusCode).toBe(200);
    expect(downloaded.rawPayload.equals(bytes)).toBe(true);
  });
});
