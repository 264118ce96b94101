import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKeys } from '../src/crypto/rotation.js';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { PUBLIC_REPORTS_COMPANY_ID } from '../src/modules/companies/public-reports-company.js';
import { parseReference, referenceOf } from '../src/modules/public-reports/reference.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, intake, publicBody, uniquePhone } from './helpers/public-reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let operator: Awaited<ReturnType<typeof createOperator>>;
let searcher: Awaited<ReturnType<typeof createCompany>>;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await createOperator(t);
  searcher = await createCompany(t);
});
afterAll(() => t.close());

const file = (phone: string, overrides: Record<string, unknown> = {}) => filePublicReport(t, phone, overrides);
const asOperator = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>, apiKey = operator.apiKey) =>
  t.app.inject({ method, url, headers: key(apiKey), ...(payload ? { payload } : {}) });

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
    expect(item.identifiers[0].value).toMatch(/^v2\./);

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

  it('reads a reference as the whole range of ids that start with it, ends included', () => {
    expect(parseReference(' 3f0C-2a1E ')).toEqual({
      from: '3f0c2a1e-0000-0000-0000-000000000000',
      to: '3f0c2a1e-ffff-ffff-ffff-ffffffffffff',
    });
    const id = randomUUID();
    expect(parseReference(id.toUpperCase())).toEqual({ from: id, to: id });
    expect(referenceOf('3f0c2a1e-8b7d-4c5e-9a10-000000000001')).toBe('3F0C-2A1E');
  });

  it('finds a report by the short reference its filer was given, in any case, with or without the dash', async () => {
    const filed = await intake(t, publicBody(uniquePhone()));
    expect(filed.statusCode).toBe(201);
    const { id, reference } = filed.json().data;
    expect(reference).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
    expect(reference.replace('-', '').toLowerCase()).toBe(id.slice(0, 8));
    // Another report whose id shares no prefix is not found by it.
    const other = await file(uniquePhone());
    for (const asked of [reference, reference.toLowerCase(), reference.replace('-', ''), ` ${reference} `, id]) {
      const found = await asOperator('GET', `${ADMIN}?reference=${encodeURIComponent(asked)}`);
      expect(found.statusCode, asked).toBe(200);
      const ids = found.json().data.data.map((r: { id: string }) => r.id);
      expect(ids, asked).toContain(id);
      expect(ids, asked).not.toContain(other);
      expect(found.json().data.data.find((r: { id: string }) => r.id === id).reference).toBe(reference);
    }
    // With a state too, and a page past the end still counts what the reference finds.
    expect((await asOperator('GET', `${ADMIN}?reference=${reference}&status=rejected`)).json().data.meta.total).toBe(0);
    expect((await asOperator('GET', `${ADMIN}?reference=${reference}&page=5`)).json().data.meta.total).toBeGreaterThanOrEqual(1);
    const nul = await asOperator('GET', `${ADMIN}?reference=%00%00%00%00-%00%00%00%00`);
    expect(nul.json().data.errors).toEqual([
      {
        field: 'reference',
        message: 'contains an invisible character (NUL, U+0000), often left by copying from another program: type it again',
      },
    ]);
    for (const bad of ['3F0C-2A1', 'ZZZZ-ZZZZ', '3F0C2A1E0', '3F0C_2A1E']) {
      const refused = await asOperator('GET', `${ADMIN}?reference=${bad}`);
      expect(refused.statusCode, bad).toBe(400);
      expect(refused.json().data.errors, bad).toEqual([
        { field: 'reference', message: expect.stringContaining('must be the 8 letters and digits of a reference') },
      ]);
    }
  });

  it('reads one decoded: clear identifiers, story and contact details; the list masks them; unknown ids are 404', async () => {
    const phone = uniquePhone();
    const story = `He called from ${phone} and asked for my BVN 22233344455, then emptied my account at the bank.`;
    const id = await file(phone, { fraudReason: story });
    const listed = await asOperator('GET', `${ADMIN}?status=draft&limit=100`);
    const item = listed.json().data.data.find((r: { id: string }) => r.id === id);
    expect(item.fraudReason).not.toContain(phone);
    expect(item.fraudReason).not.toContain('22233344455');
    expect(item.fraudReason).toContain('*********55');
    const res = await asOperator('GET', `${ADMIN}/${id}`);
    expect(res.statusCode).toBe(200);
    const { report } = res.json().data;
    expect(report.fraudReason).toBe(story);
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
    const padded = await asOperator('POST', `${ADMIN}/${id}/reject`, { reason: `${' '.repeat(12)}a` });
    expect(padded.json().data.errors).toEqual([
      { field: 'reason', message: 'must be at least 10 characters, not counting spaces at either end' },
    ]);
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
    // No one can be given an account in it (they could file reports under its name), nor link it to a bank.
    const invited = await asOperator('POST', '/api/v1/admin/users', {
      companyId: PUBLIC_REPORTS_COMPANY_ID,
      email: 'someone@public.example',
      role: 'analyst',
    });
    expect(invited.statusCode).toBe(404);
    expect(invited.json().message).toBe('Company not found');
    const linked = await asOperator('PUT', `/api/v1/admin/companies/${PUBLIC_REPORTS_COMPANY_ID}/bank`, { bankSlug: '9psb' });
    expect(linked.statusCode).toBe(404);
    await expect(
      sql`insert into api_keys (role, company_id, prefix, hash)
          values ('company', ${PUBLIC_REPORTS_COMPANY_ID}::uuid, 'rf_x', ${Buffer.alloc(32, 7)})`.execute(t.database.db),
    ).rejects.toThrow(/api_keys_not_public_reports/);
    // Nor, whatever a service forgets, a user or a bank link (migration 0026).
    await expect(
      sql`insert into users (company_id, email, role) values (${PUBLIC_REPORTS_COMPANY_ID}::uuid, 'x@public.example', 'analyst')`.execute(
        t.database.db,
      ),
    ).rejects.toThrow(/users_not_public_reports/);
    await expect(
      sql`insert into company_banks (company_id, bank_id) select ${PUBLIC_REPORTS_COMPANY_ID}::uuid, id from banks limit 1`.execute(
        t.database.db,
      ),
    ).rejects.toThrow(/company_banks_not_public_reports/);
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
