import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

// The bank a public report names reads what it was told of (decision 0138).
const NAMED = '/api/v1/external/public-reports';
let t: TestApp;
let operator: Awaited<ReturnType<typeof createOperator>>;
beforeAll(async () => {
  t = await buildTestApp();
  operator = await createOperator(t);
});
afterAll(() => t.close());

const asOperator = (method: 'PUT' | 'POST', url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: key(operator.apiKey), ...(payload ? { payload } : {}) });
const get = (apiKey: string, url: string) => t.app.inject({ url, headers: key(apiKey) });

describe('a public report naming a bank, as that bank reads it', () => {
  it('lists what the bank was told of, and reads it with the identifiers given, never the victim or sender', async () => {
    const banks = (await t.app.inject({ url: '/api/v1/meta-data/banks' })).json().data.entity as Array<{
      name: string;
      slug: string;
    }>;
    const named = banks.at(-2) as { name: string; slug: string };
    const bank = await createCompany(t);
    const other = await createCompany(t);
    expect((await asOperator('PUT', `/api/v1/admin/companies/${bank.companyId}/bank`, { bankSlug: named.slug })).statusCode).toBe(
      200,
    );
    const phone = uniquePhone();
    const id = await filePublicReport(t, phone, {
      financialInstitution: named.name,
      identifiers: [
        { label: 'phone', value: phone },
        { label: 'email', value: 'Scammer.Named@Example.com' },
      ],
    });
    // A draft told no one.
    expect((await get(bank.apiKey, NAMED)).json().data.data).toEqual([]);
    expect((await get(bank.apiKey, `${NAMED}/${id}`)).statusCode).toBe(404);

    expect((await asOperator('POST', `${ADMIN}/${id}/publish`)).statusCode).toBe(200);
    const listed = (await get(bank.apiKey, NAMED)).json().data;
    expect(listed.meta).toEqual({ total: 1, page: 1, limit: 20 });
    expect(listed.data[0]).toMatchObject({
      id,
      fraudType: 'romance_fraud',
      financialInstitution: named.name,
      status: 'published',
    });

    const read = await get(bank.apiKey, `${NAMED}/${id}`);
    expect(read.statusCode, read.body).toBe(200);
    const report = read.json().data.report;
    expect(Object.keys(report).sort()).toEqual(
      ['eventDate', 'financialInstitution', 'fraudReason', 'fraudType', 'id', 'identifiers', 'publishedAt', 'reference'].sort(),
    );
    expect(report.identifiers).toEqual([
      { label: 'phone', value: `+234${phone.slice(1)}` },
      { label: 'email', value: 'scammer.named@example.com' },
    ]);
    // The victim's and the sender's own details stay with the operators.
    for (const own of ['Jane', 'jane.doe@example.com', '8031234567', 'ola@example.org', '8098765432']) {
      expect(read.body.toLowerCase()).not.toContain(own.toLowerCase());
    }
    const trail = await get(bank.apiKey, '/api/v1/external/audit?action=public_read');
    expect(trail.json().data.data).toEqual([expect.objectContaining({ action: 'public_read', reportId: id })]);

    // Another member, told of nothing: the same 404 as a random id, and an empty list.
    const foreign = await get(other.apiKey, `${NAMED}/${id}`);
    const random = await get(other.apiKey, `${NAMED}/${randomUUID()}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe(random.json().message);
    expect((await get(other.apiKey, NAMED)).json().data.data).toEqual([]);

    // The operators move the member's link to another bank: what it was told as the first is no longer its to read.
    const moved = banks.at(-4) as { slug: string };
    expect((await asOperator('PUT', `/api/v1/admin/companies/${bank.companyId}/bank`, { bankSlug: moved.slug })).statusCode).toBe(
      200,
    );
    expect((await get(bank.apiKey, NAMED)).json().data.data).toEqual([]);
    expect((await get(bank.apiKey, `${NAMED}/${id}`)).statusCode).toBe(404);
    expect((await asOperator('PUT', `/api/v1/admin/companies/${bank.companyId}/bank`, { bankSlug: named.slug })).statusCode).toBe(
      200,
    );

    // Taken down by the operators: still listed, as such, and no longer readable.
    const down = await asOperator('POST', `${ADMIN}/${id}/reject`, { reason: 'Operator note: the sender withdrew the story' });
    expect(down.statusCode, down.body).toBe(200);
    expect((await get(bank.apiKey, NAMED)).json().data.data[0]).toMatchObject({ id, status: 'taken_down' });
    expect((await get(bank.apiKey, `${NAMED}/${id}`)).statusCode).toBe(404);
  });

  it('refuses a broken id or page with the field named', async () => {
    const bank = await createCompany(t);
    expect((await get(bank.apiKey, `${NAMED}/not-an-id`)).statusCode).toBe(404);
    const bad = await get(bank.apiKey, `${NAMED}?page=0`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors[0].field).toBe('page');
  });
});
