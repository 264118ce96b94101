import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** Fastify's `/a/:id` is OpenAPI's `/a/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('the OpenAPI document', () => {
  it('lists every documented route with its error responses', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    const documented = t.app.routeList.filter((r) => r.documented);
    expect(documented.length).toBeGreaterThanOrEqual(4);
    for (const route of documented) {
      const operation = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.url}`).toBeDefined();
      const statuses = Object.keys(operation.responses);
      expect(statuses).toEqual(expect.arrayContaining(['400', '500']));
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${route.method} ${route.url} documents its success`,
      ).toBe(true);
    }
    expect(doc.paths['/api/v1/meta-data/banks'].get.responses['200']).toBeDefined();
  });

  it('marks every route that needs a key with the apiKey and session security schemes and its 401/403 answers', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'redflag_session' });
    const admin = doc.paths['/api/v1/admin/companies'].post;
    expect(admin.security).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(Object.keys(admin.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '429']));
    const own = doc.paths['/api/v1/external/keys'].get;
    expect(own.security).toEqual([{ apiKey: [] }, { session: [] }]);
    // The user's own routes take the session alone.
    expect(doc.paths['/api/v1/auth/me'].get.security).toEqual([{ session: [] }]);
    expect(doc.paths['/api/v1/auth/sign-in'].post.security).toEqual([]);
    expect(Object.keys(own.responses)).toEqual(expect.arrayContaining(['401', '403']));
    // Public routes stay public.
    const banks = doc.paths['/api/v1/meta-data/banks'].get;
    expect(banks.security).toEqual([]);
    expect(banks.responses['401']).toBeUndefined();
  });

  it('requires no query parameter the service fills in itself (page, limit), and these lists answer without them', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const withDefault: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, { parameters?: Array<Record<string, unknown>> }>>(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const p of operation.parameters ?? []) {
          if (p.in !== 'query' || (p.schema as { default?: unknown })?.default === undefined) continue;
          withDefault.push(`${method} ${path} ${p.name}`);
          expect(p.required, `${method} ${path} ${p.name}`).not.toBe(true);
        }
      }
    }
    expect(withDefault).toEqual(
      expect.arrayContaining(['get /api/v1/external/audit page', 'get /api/v1/admin/public-reports limit']),
    );
  });

  it('serves interactive docs at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});
