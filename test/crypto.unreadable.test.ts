import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPhone } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { createReport, reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
beforeAll(async () => {
  t = await buildTestApp();
  company = await createCompany(t);
});
afterAll(() => t.close());

const decode = (id: string) =>
  t.app.inject({ method: 'GET', url: `/api/v1/external/reports/submissions/${id}/decode`, headers: key(company.apiKey) });
const identifierRows = (reportId: string) =>
  t.database.db
    .selectFrom('report_identifiers')
    .select(['id', 'value_token'])
    .where('report_id', '=', reportId)
    .orderBy('position')
    .execute();

describe('seals per key in /metrics', () => {
  it('counts each value sealed, by key id', async () => {
    // /metrics needs an operator key (or an allowed address).
    const operator = await createOperator(t);
    const seals = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: key(operator.apiKey) });
      const match = /redflag_seals_total\{key_id="k1"\} (\d+)/.exec(res.body);
      return Number(match?.[1] ?? 0);
    };
    const before = await seals();
    await createReport(t, company.apiKey, {
      identifiers: [
        { label: 'phone', value: localPhone() },
        { label: 'bvn', value: '22123456789' },
      ],
    });
    // The two identifiers and the fraud reason.
    expect(await seals()).toBe(before + 3);
  });
});

describe('a sealed value that does not open', () => {
  it('is marked unreadable in a decoded list, logged with its key id and row, and the rest are served', async () => {
    const phone = localPhone();
    const report = await createReport(t, company.apiKey, {
      identifiers: [
        { label: 'phone', value: phone },
        { label: 'email', value: 'someone@example.com' },
      ],
    });
    const [first] = await identifierRows(report.id);
    // A token from another report: authentic, but bound to another record.
    const other = await createReport(t, company.apiKey);
    const [foreign] = await identifierRows(other.id);
    await t.database.db
      .updateTable('report_identifiers')
      .set({ value_token: foreign?.value_token as string })
      .where('id', '=', first?.id as string)
      .execute();

    const res = await decode(report.id);
    expect(res.statusCode).toBe(200);
    const identifiers = res.json().data.report.identifiers;
    expect(identifiers[0]).toMatchObject({ label: 'phone', value: foreign?.value_token, unreadable: true });
    expect(identifiers[1]).toEqual({ id: expect.any(String), label: 'email', value: 'someone@example.com' });
    const logged = t.logLines.map((line) => JSON.parse(line)).find((entry) => entry.err?.where?.rowId === first?.id);
    expect(logged?.err.where).toMatchObject({ keyId: 'k1', recordId: report.id, label: 'phone', companyId: company.companyId });
    expect(JSON.stringify(logged)).not.toContain(phone.slice(1));
  });

  it('binds a token to its row: two phone tokens of one report swapped no longer open', async () => {
    const report = await createReport(t, company.apiKey, {
      identifiers: [
        { label: 'phone', value: localPhone() },
        { label: 'phone', value: localPhone() },
      ],
    });
    const [a, b] = await identifierRows(report.id);
    await sql`update report_identifiers set value_token = case id when ${a?.id}::uuid then ${b?.value_token} else ${a?.value_token} end
      where id in (${a?.id}::uuid, ${b?.id}::uuid)`.execute(t.database.db);
    const identifiers = (await decode(report.id)).json().data.report.identifiers;
    expect(identifiers.map((i: { unreadable?: boolean }) => i.unreadable)).toEqual([true, true]);
  });

  it('answers 500 SEALED_VALUE_UNREADABLE for an idempotent replay or contact details that do not open', async () => {
    const body = reportBody({ identifiers: [{ label: 'phone', value: localPhone() }] });
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: { ...key(company.apiKey), 'idempotency-key': 'unreadable-probe' },
      payload: body,
    });
    expect(first.statusCode).toBe(201);
    await sql`update idempotency_keys set response_body = overlay(response_body placing 'AAAA' from 20 for 4)
      where key = 'unreadable-probe'`.execute(t.database.db);
    const replay = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: { ...key(company.apiKey), 'idempotency-key': 'unreadable-probe' },
      payload: body,
    });
    expect(replay.statusCode).toBe(500);
    expect(replay.json()).toEqual({
      success: false,
      message: expect.stringMatching(/could not be decrypted/),
      data: { code: 'SEALED_VALUE_UNREADABLE', requestId: expect.any(String) },
    });

    const operator = await createOperator(t);
    const id = await filePublicReport(t, uniquePhone());
    await sql`update public_reports set victim_token = guest_info_token where id = ${id}::uuid`.execute(t.database.db);
    const contact = await t.app.inject({ method: 'GET', url: `${ADMIN}/${id}`, headers: key(operator.apiKey) });
    expect(contact.statusCode).toBe(500);
    expect(contact.json().data.code).toBe('SEALED_VALUE_UNREADABLE');
  });
});
