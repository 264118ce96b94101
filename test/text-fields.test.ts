import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, intake, publicBody, uniquePhone } from './helpers/public-reports.js';
import { createReport, REASON, reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
let operator: Awaited<ReturnType<typeof createOperator>>;

beforeAll(async () => {
  t = await buildTestApp();
  company = await createCompany(t);
  operator = await createOperator(t);
});
afterAll(() => t.close());

const NUL = '\u0000';

function expectNulRefused(res: { statusCode: number; json(): unknown }, field: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(400);
  expect(res.json()).toMatchObject({
    success: false,
    data: {
      code: 'VALIDATION_FAILED',
      errors: [
        {
          field,
          message: 'contains an invisible character (NUL, U+0000), often left by copying from another program: type it again',
        },
      ],
    },
  });
}

describe('U+0000 in a text field is a 400 naming the field', () => {
  it('in a report body: fraudReason, userId, an identifier value', async () => {
    const url = '/api/v1/external/reports';
    const headers = key(company.apiKey);
    for (const [payload, field] of [
      [reportBody({ fraudReason: `${REASON}${NUL}` }), 'fraudReason'],
      [reportBody({ userId: `user${NUL}1` }), 'userId'],
      [reportBody({ identifiers: [{ label: 'email', value: `a${NUL}@example.com` }] }), 'identifiers/0/value'],
    ] as const) {
      expectNulRefused(await t.app.inject({ method: 'POST', url, headers, payload }), field);
    }
  });

  it('in an exit reason, a search value and a draft edit', async () => {
    const report = await createReport(t, company.apiKey, { status: 'draft' });
    const base = `/api/v1/external/reports/submissions/${report.id}`;
    const headers = key(company.apiKey);
    expectNulRefused(
      await t.app.inject({ method: 'POST', url: `${base}/exit`, headers, payload: { reason: `No longer ${NUL} relevant` } }),
      'reason',
    );
    expectNulRefused(
      await t.app.inject({ method: 'PATCH', url: base, headers, payload: { fraudReason: `${REASON}${NUL}` } }),
      'fraudReason',
    );
    expectNulRefused(
      await t.app.inject({ method: 'POST', url: '/reports/search', headers, payload: { identifier: 'email', value: `a${NUL}` } }),
      'value',
    );
  });

  it('at public intake (no key): fraudReason, financialInstitution, victim/name', async () => {
    const phone = uniquePhone();
    expectNulRefused(await intake(t, publicBody(phone, { fraudReason: `${REASON}${NUL}` })), 'fraudReason');
    expectNulRefused(await intake(t, publicBody(phone, { financialInstitution: `Access${NUL}Bank` })), 'financialInstitution');
    expectNulRefused(await intake(t, publicBody(phone, { victim: { name: `Jane${NUL}` } })), 'victim/name');
  });

  it("in an operator's reject reason and a company's businessName", async () => {
    const id = await filePublicReport(t, uniquePhone());
    const headers = key(operator.apiKey);
    expectNulRefused(
      await t.app.inject({
        method: 'POST',
        url: `${ADMIN}/${id}/reject`,
        headers,
        payload: { reason: `Duplicate${NUL} report` },
      }),
      'reason',
    );
    expectNulRefused(
      await t.app.inject({ method: 'POST', url: '/api/v1/admin/companies', headers, payload: { businessName: `Acme${NUL}MFB` } }),
      'businessName',
    );
  });

  it("in audit's ?action= and a body's field name", async () => {
    expectNulRefused(
      await t.app.inject({ method: 'GET', url: '/api/v1/external/audit?action=search%00', headers: key(company.apiKey) }),
      'action',
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/reports/search',
      headers: { ...key(company.apiKey), 'content-type': 'application/json' },
      payload: '{"identifier":"email","value":"a@example.com","x\\u0000":1}',
    });
    expectNulRefused(res, 'x\u0000');
  });

  it('and a lone UTF-16 surrogate (no character at all) is a 400 naming the field too, not a 500 from the json column', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/public/reports',
      headers: { 'content-type': 'application/json' },
      remoteAddress: '198.51.100.77',
      payload: JSON.stringify(publicBody(uniquePhone(), { victim: { name: 'Jane \ud800 Doe' } })),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().data.errors).toEqual([
      { field: 'victim/name', message: 'must be valid Unicode (a lone surrogate is not a character)' },
    ]);
    const paired = await intake(t, publicBody(uniquePhone(), { victim: { name: 'Jane 😀 Doe' } }));
    expect(paired.statusCode, paired.body).toBe(201);
  });

  it('however deep the body nests: a 400, never a stack overflow', async () => {
    const headers = { ...key(company.apiKey), 'content-type': 'application/json' };
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const nested = await t.app.inject({ method: 'POST', url: '/reports/search', headers, payload: deep });
    expect(nested.statusCode).toBe(400);
    expect(nested.json().data.code).toBe('VALIDATION_FAILED');
    const deepNul = `{"identifier":"email","value":"a@example.com","x":${'['.repeat(5000)}"\\u0000"${']'.repeat(5000)}}`;
    const res = await t.app.inject({ method: 'POST', url: '/reports/search', headers, payload: deepNul });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors[0]).toEqual({
      field: `x${'/0'.repeat(5000)}`,
      message: 'contains an invisible character (NUL, U+0000), often left by copying from another program: type it again',
    });
  });

  it('in every string query parameter and every path parameter of every documented route', async () => {
    const openapi = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema: { type?: string } }> }>>;
    };
    let checked = 0;
    for (const [path, operations] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const headers = path.startsWith('/api/v1/admin') ? key(operator.apiKey) : key(company.apiKey);
        for (const param of operation.parameters ?? []) {
          if (param.in === 'query' && param.schema.type === 'string') {
            const url = `${path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000')}?${param.name}=a%00b`;
            expectNulRefused(await t.app.inject({ method: method.toUpperCase() as 'GET', url, headers }), param.name);
            checked++;
          } else if (param.in === 'path') {
            const url = path.replace(`{${param.name}}`, 'a%00b').replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
            expectNulRefused(
              await t.app.inject({ method: method.toUpperCase() as 'GET', url, headers, payload: {} }),
              param.name,
            );
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
