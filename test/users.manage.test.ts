import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKeys } from '../src/crypto/rotation.js';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { totpCode } from '../src/modules/users/totp.js';
import {
  accept,
  createUser,
  invite,
  PASSWORD,
  sessionCookie,
  sessionHeaders,
  signIn,
  testClock,
  tokenOf,
  uniqueEmail,
} from './helpers/people.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport, reportBody } from './helpers/reports.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
const clock = testClock();

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now });
});
afterAll(() => t.close());

const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers });
const fileReport = (headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/external/reports', headers, payload: reportBody() });

describe('company admins manage their users', () => {
  it('invite over HTTP, list, change a role (at once), remove (at once)', async () => {
    const { companyId } = await createCompany(t);
    const admin = await createUser(t, clock, { companyId }, 'admin');
    const email = uniqueEmail('analyst');
    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/users',
      headers: admin.headers,
      payload: { email, role: 'analyst' },
    });
    expect(invited.statusCode).toBe(201);
    const { userId, inviteUrl, expiresAt } = invited.json().data;
    expect(Date.parse(expiresAt) - clock.now().getTime()).toBe(72 * 3_600_000);
    expect((await accept(t, tokenOf(inviteUrl))).statusCode).toBe(200);
    const analystCookie = sessionCookie(await signIn(t, email));
    const analyst = sessionHeaders(t, analystCookie);
    expect((await fileReport(analyst)).statusCode).toBe(201);

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/external/users', headers: admin.headers });
    expect(
      list
        .json()
        .data.users.map((u: { id: string }) => u.id)
        .sort(),
    ).toEqual([admin.userId, userId].sort());

    // Down to viewer: the analyst's session ends at once; signed in again, filing is refused.
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/external/users/${userId}`,
      headers: admin.headers,
      payload: { role: 'viewer' },
    });
    expect(changed.json().data.user.role).toBe('viewer');
    expect((await fileReport(analyst)).statusCode).toBe(401);
    const viewer = sessionHeaders(t, sessionCookie(await signIn(t, email)));
    const refused = await fileReport(viewer);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().data.code).toBe('FORBIDDEN');

    const removed = await t.app.inject({ method: 'DELETE', url: `/api/v1/external/users/${userId}`, headers: admin.headers });
    expect(removed.json().data.user.status).toBe('removed');
    expect((await me(viewer)).statusCode).toBe(401);
    expect((await signIn(t, email)).json().data.code).toBe('INVALID_CREDENTIALS');
    // Not oneself: a company could lose its last admin that way.
    for (const [method, payload] of [
      ['PATCH', { role: 'viewer' }],
      ['DELETE', undefined],
    ] as const) {
      const self = await t.app.inject({
        method,
        url: `/api/v1/external/users/${admin.userId}`,
        headers: admin.headers,
        ...(payload ? { payload } : {}),
      });
      expect(self.statusCode).toBe(409);
      expect(self.json().data.code).toBe('INVALID_STATE');
    }
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/external/users', headers: admin.headers });
    expect(after.json().data.users.map((u: { id: string }) => u.id)).toEqual([admin.userId]);
  });

  it('never leaves a company without an active admin: by key, two admins demoted at once keep one', async () => {
    const { companyId, apiKey } = await createCompany(t);
    const first = await createUser(t, clock, { companyId }, 'admin');
    const second = await createUser(t, clock, { companyId }, 'admin');
    const change = (userId: string, method: 'PATCH' | 'DELETE') =>
      t.app.inject({
        method,
        url: `/api/v1/external/users/${userId}`,
        headers: key(apiKey),
        ...(method === 'PATCH' ? { payload: { role: 'analyst' } } : {}),
      });
    const both = await Promise.all([change(first.userId, 'PATCH'), change(second.userId, 'PATCH')]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const last = both[0]?.statusCode === 409 ? first : second;
    const refused = await change(last.userId, 'DELETE');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe('This is the last admin; make another person an admin first');
    // The operators may (a compromised last admin is shut out), and so may a new admin be made first.
    const analyst = both[0]?.statusCode === 409 ? second : first;
    const promoted = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/external/users/${analyst.userId}`,
      headers: key(apiKey),
      payload: { role: 'admin' },
    });
    expect(promoted.statusCode).toBe(200);
    expect((await change(last.userId, 'DELETE')).statusCode).toBe(200);
  });

  it("sees another company's users and reports exactly as random ids (404)", async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const adminA = await createUser(t, clock, { companyId: a.companyId }, 'admin');
    const userB = await invite(t, { companyId: b.companyId }, 'analyst');
    const reportB = await createReport(t, b.apiKey);
    for (const [method, url, payload] of [
      ['PATCH', `/api/v1/external/users/${userB.userId}`, { role: 'viewer' }],
      ['DELETE', `/api/v1/external/users/${userB.userId}`, undefined],
      ['GET', `/api/v1/external/reports/submissions/${reportB.id}`, undefined],
      ['GET', `/api/v1/external/reports/submissions/${reportB.id}/decode`, undefined],
    ] as const) {
      const foreign = await t.app.inject({ method, url, headers: adminA.headers, ...(payload ? { payload } : {}) });
      const random = await t.app.inject({
        method,
        url: url.replace(/[0-9a-f-]{36}/, randomUUID()),
        headers: adminA.headers,
        ...(payload ? { payload } : {}),
      });
      expect(foreign.statusCode, url).toBe(404);
      expect({ ...foreign.json(), data: { ...foreign.json().data, requestId: '' } }).toEqual({
        ...random.json(),
        data: { ...random.json().data, requestId: '' },
      });
    }
    // A session sees its own company, like the company's key.
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/external/reports/submissions', headers: adminA.headers });
    const listByKey = await t.app.inject({ method: 'GET', url: '/api/v1/external/reports/submissions', headers: key(a.apiKey) });
    expect(list.json().data).toEqual(listByKey.json().data);
  });

  it('refuses an invitation for an address that already has an account', async () => {
    const { companyId } = await createCompany(t);
    const first = await invite(t, { companyId }, 'viewer');
    const again = await t.app.admin.users.invite({ companyId, email: first.email, role: 'viewer' }).catch((e: Error) => e);
    expect((again as { code?: string }).code).toBe('INVALID_STATE');
  });
});

describe('operators', () => {
  it('suspend a user of any company, ending their sessions on every instance, and lift it', async () => {
    const { companyId } = await createCompany(t);
    const { operatorId } = await createOperator(t);
    const opAdmin = await createUser(t, clock, { operatorId }, 'admin');
    const analyst = await createUser(t, clock, { companyId }, 'analyst');
    // The same clock on both instances: they judge the same session rows.
    const sibling = await buildSiblingApp(t, {}, clock.now);
    try {
      const onSibling = () => sibling.inject({ method: 'GET', url: '/api/v1/auth/me', headers: analyst.headers });
      expect((await onSibling()).statusCode).toBe(200);
      const suspended = await t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/users/${analyst.userId}/suspend`,
        headers: opAdmin.headers,
      });
      expect(suspended.json().data.user.status).toBe('suspended');
      expect((await onSibling()).statusCode).toBe(401);
      const refused = await signIn(t, analyst.email);
      expect(refused.statusCode).toBe(403);
      const activated = await t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/users/${analyst.userId}/activate`,
        headers: opAdmin.headers,
      });
      expect(activated.json().data.user.status).toBe('active');
      expect((await signIn(t, analyst.email, PASSWORD)).statusCode).toBe(200);
    } finally {
      await sibling.close();
    }
  });

  it("invite into a company over HTTP and list any company's users", async () => {
    const { companyId } = await createCompany(t);
    const op = await createOperator(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/users',
      headers: key(op.apiKey),
      payload: { companyId, email: uniqueEmail('first.admin'), role: 'admin' },
    });
    expect(res.statusCode).toBe(201);
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/users?companyId=${companyId}`,
      headers: key(op.apiKey),
    });
    expect(list.json().data.users).toHaveLength(1);
    const wrongRole = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/users',
      headers: key(op.apiKey),
      payload: { companyId, email: uniqueEmail('x'), role: 'moderator' },
    });
    expect(wrongRole.statusCode).toBe(400);
    expect(wrongRole.json().data.errors[0].field).toBe('role');
  });
});

describe('key rotation', () => {
  it('re-seals TOTP secrets (crypto rotate lists the column); the second factor still works', async () => {
    const { operatorId } = await createOperator(t);
    const moderator = await createUser(t, clock, { operatorId }, 'moderator');
    const summary = await rotateKeys({ db: t.database.db, crypto: t.app.crypto, columns: sealedColumns });
    expect(summary.failed).toBe(0);
    const column = summary.columns.find((c) => c.table === 'users' && c.column === 'totp_secret_token');
    expect(column?.reencrypted).toBeGreaterThan(0);
    const res = await signIn(t, moderator.email, PASSWORD, totpCode(moderator.secret as string, clock.now()));
    expect(res.statusCode).toBe(200);
  });
});
