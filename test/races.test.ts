import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ config: { webhookAllowPrivate: true } });
});
afterAll(() => t.close());

const create = (apiKey: string, n: number) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/external/webhooks',
    headers: key(apiKey),
    payload: { url: `http://127.0.0.1:9/hook-${n}`, events: ['watchlist.match'] },
  });

describe('webhook endpoints created at once', () => {
  it('never pass the ten a company may have: of three sent together for the last place, one is made', async () => {
    const member = await createCompany(t);
    for (let n = 0; n < 9; n++) expect((await create(member.apiKey, n)).statusCode).toBe(201);
    const last = await Promise.all([9, 10, 11].map((n) => create(member.apiKey, n)));
    expect(last.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    const list = await t.app.inject({ url: '/api/v1/external/webhooks', headers: key(member.apiKey) });
    expect(list.json().data.webhooks).toHaveLength(10);
  });
});

describe('two members linked to one bank at once', () => {
  it('links one and answers the other 409 (it met the unique index as a 500)', async () => {
    const operator = await createOperator(t);
    const [first, second] = [await createCompany(t), await createCompany(t)];
    const banks = (await t.app.inject({ url: '/api/v1/meta-data/banks' })).json().data.entity;
    const slug = (banks.at(-1) as { slug: string }).slug;
    const link = (companyId: string) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/v1/admin/companies/${companyId}/bank`,
        headers: key(operator.apiKey),
        payload: { bankSlug: slug },
      });
    const answers = await Promise.all([link(first.companyId), link(second.companyId)]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });
});
