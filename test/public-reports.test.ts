import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKeys } from '../src/crypto/rotation.js';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { nubanCheckDigit } from '../src/identifiers/nuban.js';
import { PUBLIC_REPORTS_COMPANY_ID } from '../src/modules/companies/public-reports-company.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
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

const ADMIN = '/api/v1/admin/public-reports';
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/** Each intake from its own address, so the per-address limit only bites where a test wants it. */
let address = 0;
const nextAddress = () => `198.51.100.${(++address % 250) + 1}`;

let serial = 2_000_000;
const uniquePhone = () => `0805${String(++serial).padStart(7, '0')}`;

function publicBody(phone: string, overrides: Record<string, unknown> = {}) {
  return {
    reportingEntity: 'self',
    fraudType: 'romance_fraud',
    fraudReason: REASON,
    financialInstitution: '  Access   Bank ',
    eventDate: yesterday(),
    identifiers: [{ label: 'phone', value: phone }],
    victim: { name: 'Jane  Doe', email: 'Jane.Doe@Example.com', phone: '0803 123 4567', amountLost: 250000, currency: 'NGN' },
    guestInfo: { name: 'Ola Ade', email: 'ola@example.org', phone: '+234 (0) 809 876 5432' },
    ...overrides,
  };
}

const intake = (payload: Record<string, unknown>, remoteAddress = nextAddress()) =>
  t.app.inject({ method: 'POST', url: '/api/v1/public/reports', payload, remoteAddress });

async function file(phone: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await intake(publicBody(phone, overrides));
  if (res.statusCode !== 201) throw new Error(`intake failed ${res.statusCode}: ${res.body}`);
  return res.json().data.id;
}

const asOperator = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>, apiKey = operator.apiKey) =>
  t.app.inject({ method, url, headers: key(apiKey), ...(payload ? { payload } : {}) });

describe('POST /api/v1/public/reports', () => {
  it('takes a report without a key and stores it as a draft of the Public reports company, contacts sealed', async () => {
    const res = await intake(publicBody(uniquePhone()));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ success: true, message: expect.any(String), data: { id: expect.any(String), status: 'draft' } });
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
        name: 'Jane Doe',
        email: 'j***@example.com',
        phone: '+234803****567',
        amountLost: 250000,
        currency: 'NGN',
      },
      guest_info_masked: { name: 'Ola Ade', email: 'o***@example.org', phone: '+234809****432' },
    });
    for (const token of [row.victim_token, row.guest_info_token]) {
      expect(token).toMatch(/^v1\.k\d+\./);
      expect(token).not.toContain('example');
      expect(token).not.toContain('8031234567');
    }
    const identifier = await t.database.db
      .selectFrom('public_report_identifiers')
      .selectAll()
      .where('public_report_id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(identifier.value_token).toMatch(/^v1\./);
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
      victim: { name: 'Jane Doe', email: 'j***@example.com', phone: '+234803****567', amountLost: 250000, currency: 'NGN' },
      guestInfo: { name: 'Ola Ade', email: 'o***@example.org', phone: '+234809****432' },
      reportingEntity: 'self',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      identifiers: [{ id: expect.any(String), label: 'phone', value: expect.stringMatching(/^v1\.k\d+\./) }],
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
    const serialDigits = String(++serial).slice(-9).padStart(9, '7');
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

describe('moderation', () => {
  it('is for operator keys only: none is 401, a company key 403', async () => {
    const id = await file(uniquePhone());
    const routes: Array<['GET' | 'POST', string, Record<string, unknown>?]> = [
      ['GET', `${ADMIN}?status=draft`],
      ['GET', `${ADMIN}/${id}`],
      ['POST', `${ADMIN}/${id}/publish`],
      ['POST', `${ADMIN}/${id}/reject`, { reason: 'Not a real report at all' }],
    ];
    for (const [method, url, payload] of routes) {
      const anonymous = await t.app.inject({ method, url, ...(payload ? { payload } : {}) });
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401);
      const company = await asOperator(method, url, payload, searcher.apiKey);
      expect(company.statusCode, `${method} ${url}`).toBe(403);
      expect(company.json().data.code).toBe('FORBIDDEN');
    }
    const row = await t.database.db.selectFrom('public_reports').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('draft');
  });

  it('lists by status, newest first, in pages, with masked contacts', async () => {
    const ids = [await file(uniquePhone()), await file(uniquePhone()), await file(uniquePhone())];
    await asOperator('POST', `${ADMIN}/${ids[0]}/reject`, { reason: 'Spam sent from a script' });
    const drafts = await asOperator('GET', `${ADMIN}?status=draft&limit=100`);
    expect(drafts.statusCode).toBe(200);
    const draftIds = drafts.json().data.data.map((r: { id: string }) => r.id);
    expect(draftIds).toEqual(expect.arrayContaining([ids[1], ids[2]]));
    expect(draftIds).not.toContain(ids[0]);
    expect(draftIds.indexOf(ids[2])).toBeLessThan(draftIds.indexOf(ids[1]));
    const item = drafts.json().data.data.find((r: { id: string }) => r.id === ids[1]);
    expect(item).toMatchObject({
      status: 'draft',
      victim: { email: 'j***@example.com' },
      rejectionReason: null,
      moderatedAt: null,
    });
    expect(item.identifiers[0].value).toMatch(/^v1\./);

    const page = await asOperator('GET', `${ADMIN}?status=draft&page=2&limit=1`);
    expect(page.json().data.meta).toEqual({ total: drafts.json().data.meta.total, page: 2, limit: 1 });
    expect(page.json().data.data).toHaveLength(1);
    const past = await asOperator('GET', `${ADMIN}?status=draft&page=1000&limit=100`);
    expect(past.json().data).toEqual({ data: [], meta: { total: drafts.json().data.meta.total, page: 1000, limit: 100 } });
    const rejected = await asOperator('GET', `${ADMIN}?status=rejected`);
    expect(rejected.json().data.data.map((r: { id: string }) => r.id)).toContain(ids[0]);
    expect((await asOperator('GET', `${ADMIN}?status=gone`)).statusCode).toBe(400);
    expect((await asOperator('GET', `${ADMIN}?limit=101`)).statusCode).toBe(400);
  });

  it('reads one decoded: clear identifiers and contact details; unknown ids are 404', async () => {
    const phone = uniquePhone();
    const id = await file(phone);
    const res = await asOperator('GET', `${ADMIN}/${id}`);
    expect(res.statusCode).toBe(200);
    const { report } = res.json().data;
    expect(report.identifiers).toEqual([{ id: expect.any(String), label: 'phone', value: `+234${phone.slice(1)}` }]);
    expect(report.victim).toEqual({
      name: 'Jane Doe',
      email: 'jane.doe@example.com',
      phone: '+2348031234567',
      amountLost: 250000,
      currency: 'NGN',
    });
    expect(report.guestInfo).toEqual({ name: 'Ola Ade', email: 'ola@example.org', phone: '+2348098765432' });
    expect((await asOperator('GET', `${ADMIN}/${randomUUID()}`)).statusCode).toBe(404);
    expect((await asOperator('GET', `${ADMIN}/not-an-id`)).statusCode).toBe(404);
    expect((await asOperator('POST', `${ADMIN}/${randomUUID()}/publish`)).statusCode).toBe(404);
  });

  it('refuses a decision the report is not in a state for, and a reason too short', async () => {
    const id = await file(uniquePhone());
    expect((await asOperator('POST', `${ADMIN}/${id}/reject`, { reason: 'short' })).statusCode).toBe(400);
    expect((await asOperator('POST', `${ADMIN}/${id}/reject`, {})).statusCode).toBe(400);
    expect((await asOperator('POST', `${ADMIN}/${id}/publish`)).statusCode).toBe(200);
    const twice = await asOperator('POST', `${ADMIN}/${id}/publish`);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().data.code).toBe('INVALID_STATE');
    expect((await asOperator('POST', `${ADMIN}/${id}/reject`, { reason: 'Taken down after review' })).statusCode).toBe(200);
    expect((await asOperator('POST', `${ADMIN}/${id}/reject`, { reason: 'Taken down after review' })).statusCode).toBe(409);
  });

  it('audits every decision and every decoded read with the operator and key', async () => {
    const id = await file(uniquePhone());
    await asOperator('GET', `${ADMIN}/${id}`);
    await asOperator('POST', `${ADMIN}/${id}/publish`);
    await asOperator('POST', `${ADMIN}/${id}/reject`, { reason: 'Victim asked us to remove it' });
    const rows = await t.database.db
      .selectFrom('audit_events')
      .select(['action', 'operator_id', 'key_id', 'company_id'])
      .where('report_id', '=', id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual(
      ['public_decode', 'public_publish', 'public_reject'].map((action) => ({
        action,
        operator_id: operator.operatorId,
        key_id: operator.keyId,
        company_id: null,
      })),
    );
  });
});

describe('the built-in Public reports company', () => {
  it('exists with the fixed id, is not listed, cannot be managed and can never hold a key', async () => {
    const row = await t.database.db
      .selectFrom('companies')
      .select('business_name')
      .where('id', '=', PUBLIC_REPORTS_COMPANY_ID)
      .executeTakeFirstOrThrow();
    expect(row.business_name).toBe('Public reports');

    const list = await asOperator('GET', '/api/v1/admin/companies?limit=100');
    expect(list.json().data.data.map((c: { id: string }) => c.id)).not.toContain(PUBLIC_REPORTS_COMPANY_ID);
    expect((await asOperator('GET', `/api/v1/admin/companies/${PUBLIC_REPORTS_COMPANY_ID}`)).statusCode).toBe(404);
    await expect(t.app.admin.keys.issueForCompany(PUBLIC_REPORTS_COMPANY_ID)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.app.admin.companies.suspend(PUBLIC_REPORTS_COMPANY_ID)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      sql`insert into api_keys (role, company_id, prefix, hash)
          values ('company', ${PUBLIC_REPORTS_COMPANY_ID}::uuid, 'rf_x', ${Buffer.alloc(32, 7)})`.execute(t.database.db),
    ).rejects.toThrow(/api_keys_not_public_reports/);
  });
});

describe('key rotation', () => {
  it('re-encrypts public report identifiers and contact details, which still decode', async () => {
    const id = await file(uniquePhone());
    const summary = await rotateKeys({ db: t.database.db, crypto: t.app.crypto, columns: sealedColumns });
    expect(summary.failed).toBe(0);
    const columns = summary.columns.map((c) => `${c.table}.${c.column}`);
    expect(columns).toEqual(
      expect.arrayContaining([
        'public_report_identifiers.value_token',
        'public_reports.victim_token',
        'public_reports.guest_info_token',
      ]),
    );
    for (const column of summary.columns.filter((c) => c.table.startsWith('public_')))
      expect(column.reencrypted).toBeGreaterThan(0);
    const decoded = await asOperator('GET', `${ADMIN}/${id}`);
    expect(decoded.json().data.report.victim.email).toBe('jane.doe@example.com');
  });
});
