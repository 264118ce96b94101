import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let companyKey: string;
let operatorKey: string;

beforeAll(async () => {
  t = await buildTestApp();
  companyKey = (await createCompany(t)).apiKey;
  operatorKey = (await createOperator(t)).apiKey;
});
afterAll(() => t.close());

interface Parameter {
  in: string;
  name: string;
  schema: { type?: string; maximum?: number };
}

async function numericQueryParameters() {
  const openapi = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  };
  const found: Array<{ method: string; path: string; param: Parameter }> = [];
  for (const [path, operations] of Object.entries(openapi.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const param of operation.parameters ?? []) {
        if (param.in === 'query' && (param.schema.type === 'integer' || param.schema.type === 'number')) {
          found.push({ method: method.toUpperCase(), path, param });
        }
      }
    }
  }
  return found;
}

describe('numeric query parameters', () => {
  it('every route the app registered is in the OpenAPI document this test walks', () => {
    const undocumented = t.app.routeList.filter((r) => !r.documented && r.url.startsWith('/api'));
    expect(undocumented).toEqual([]);
  });

  it('every integer or number query parameter of every route has a maximum', async () => {
    const params = await numericQueryParameters();
    expect(params.length).toBeGreaterThan(3);
    const unbounded = params
      .filter(({ param }) => param.schema.maximum === undefined)
      .map((p) => `${p.method} ${p.path} ?${p.param.name}`);
    expect(unbounded).toEqual([]);
  });

  it('a value past the maximum, such as page=1e20, is a 400 naming the parameter', async () => {
    for (const { method, path, param } of await numericQueryParameters()) {
      const headers = key(path.startsWith('/api/v1/admin') ? operatorKey : companyKey);
      // Only decimal digits: JavaScript's Number would read the last four as 16, 3, 10 and 1.
      for (const value of [
        '1e20',
        String((param.schema.maximum ?? 0) + 1),
        '99999999999999999999999',
        '0x10',
        '0b11',
        '1e1',
        '%201',
      ]) {
        const res = await t.app.inject({ method: method as 'GET', url: `${path}?${param.name}=${value}`, headers });
        expect(res.statusCode, `${method} ${path}?${param.name}=${value}: ${res.body}`).toBe(400);
        expect(res.json().data.errors).toEqual([{ field: param.name, message: expect.any(String) }]);
      }
    }
  });

  it('GET /api/v1/admin/public-reports?page=1e20 or page=1000001 is a 400 naming page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/public-reports?page=1e20', headers: key(operatorKey) });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([{ field: 'page', message: 'must be an integer' }]);
    const past = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/public-reports?page=1000001',
      headers: key(operatorKey),
    });
    expect(past.json().data.errors).toEqual([{ field: 'page', message: 'must be at most 1000000' }]);
  });
});

describe('a query parameter given twice', () => {
  it('is said to be given twice, not to be of the wrong type', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/external/reports/submissions?limit=10&limit=20&page=1',
      headers: key(companyKey),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([{ field: 'limit', message: 'is given more than once; give it once' }]);
    // Once is fine.
    const once = await t.app.inject({
      method: 'GET',
      url: '/api/v1/external/reports/submissions?limit=10',
      headers: key(companyKey),
    });
    expect(once.statusCode).toBe(200);
  });
});
