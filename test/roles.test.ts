import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ROLES, type UserRole } from '../src/http/roles.js';
import { createUser, testClock } from './helpers/people.js';
import { createCompany, createOperator } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
const clock = testClock();
const sessions = new Map<UserRole, Record<string, string>>();

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now });
  const { companyId } = await createCompany(t);
  const { operatorId } = await createOperator(t);
  for (const role of ['admin', 'analyst', 'viewer'] as const) {
    sessions.set(`company:${role}`, (await createUser(t, clock, { companyId }, role)).headers);
  }
  for (const role of ['moderator', 'admin'] as const) {
    sessions.set(`operator:${role}`, (await createUser(t, clock, { operatorId }, role)).headers);
  }
});
afterAll(() => t.close());

/** Every route that takes a key or a role's session (the `session`-only routes are the user's own: sign-out, me, TOTP). */
const roleRoutes = () => t.app.routeList.filter((r) => r.auth !== undefined && r.auth !== 'session');

describe('the role table', () => {
  it('names every authenticated route, and nothing else', () => {
    const routes = roleRoutes().map((r) => `${r.method} ${r.url}`);
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((r) => !(r in ROUTE_ROLES))).toEqual([]);
    expect(Object.keys(ROUTE_ROLES).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it('is what every route enforces, role by role: 403 FORBIDDEN in the envelope for a role not listed', async () => {
    const checked: string[] = [];
    for (const route of roleRoutes()) {
      const url = route.url.replace(/:[A-Za-z]+/g, randomUUID());
      for (const [role, headers] of sessions) {
        const res = await t.app.inject({
          method: route.method as 'GET',
          url,
          headers,
          ...(route.method === 'GET' ? {} : { payload: {} }),
        });
        const allowed = ROUTE_ROLES[`${route.method} ${route.url}`]?.includes(role);
        const what = `${role} ${route.method} ${route.url} → ${res.statusCode} ${res.body.slice(0, 120)}`;
        if (allowed) expect(res.statusCode, what).not.toBe(403);
        else {
          expect(res.statusCode, what).toBe(403);
          expect(res.json(), what).toMatchObject({
            success: false,
            data: { code: 'FORBIDDEN', requestId: res.headers['x-request-id'] },
          });
        }
        expect(res.statusCode, what).not.toBe(401);
        checked.push(what);
      }
    }
    expect(checked.length).toBe(roleRoutes().length * 5);
  });
});
