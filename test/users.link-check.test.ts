import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, invite, PASSWORD, testClock, tokenOf } from './helpers/people.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const clock = testClock();
const NEW_PASSWORD = 'another long and unusual passphrase';
let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
let operator: Awaited<ReturnType<typeof createOperator>>;
/** The member's admin, signed in: they send the password links. */
let admin: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now, config: { passwordResetTtlHours: 2 } });
  company = await createCompany(t);
  operator = await createOperator(t);
  admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
});
afterAll(() => t.close());

/** Calls from addresses of their own: the auth routes allow 20 a minute per address. */
let address = 0;
const nextAddress = () => `10.8.${Math.floor(++address / 200)}.${address % 200}`;
const check = (payload: unknown, remoteAddress = nextAddress()) =>
  t.app.inject({ method: 'POST', url: '/api/v1/auth/links/check', payload: payload as object, remoteAddress });
const acceptInvitation = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/invitations/accept',
    payload: { token, password: PASSWORD, name: 'Ada Obi' },
    remoteAddress: nextAddress(),
  });
const reset = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/password-reset/accept',
    payload: { token, password: NEW_PASSWORD },
    remoteAddress: nextAddress(),
  });
const passwordLink = async (headers: Record<string, string>, userId: string, side: 'external' | 'admin' = 'external') => {
  const res = await t.app.inject({ method: 'POST', url: `/api/v1/${side}/users/${userId}/password-link`, headers });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as { url: string; expiresAt: string; kind: string };
  return { token: tokenOf(data.url), expiresAt: data.expiresAt, kind: data.kind };
};

/** The answer to a link that does not work: 400 LINK_INVALID, no field errors, the request id aside always the same. */
async function expectInvalid(token: string) {
  const res = await check({ token });
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json();
  expect(body.data.code).toBe('LINK_INVALID');
  expect(body.data.errors).toBeUndefined();
  return { ...body, data: { ...body.data, requestId: undefined } };
}

/** The link's row and its account's, to show that a check writes nothing. */
async function rowsOf(userId: string) {
  const links = await t.database.db
    .selectFrom('user_invitations')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();
  const user = await t.database.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
  return { links, user };
}

describe('checking a link without using it', () => {
  it("answers an invitation's purpose, address, member and end, exactly; checking twice writes nothing, and it is accepted after", async () => {
    const email = `ada.link.${process.pid}@bank.example`;
    const invited = await t.app.admin.users.invite({ companyId: company.companyId, email, role: 'analyst' });
    const token = tokenOf(invited.inviteUrl);
    const before = await rowsOf(invited.userId);

    const first = await check({ token });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().success).toBe(true);
    expect(first.json().data).toEqual({
      link: { purpose: 'invitation', email, memberName: company.businessName, expiresAt: invited.expiresAt },
    });
    expect(Object.keys(first.json().data.link).sort()).toEqual(['email', 'expiresAt', 'memberName', 'purpose']);
    expect(new Date(first.json().data.link.expiresAt).getTime()).toBe(clock.now().getTime() + 72 * 3_600_000);
    const second = await check({ token });
    expect(second.json().data).toEqual(first.json().data);
    expect(await rowsOf(invited.userId)).toEqual(before);
    expect(before.links.map((link) => link.accepted_at)).toEqual([null]);

    const accepted = await acceptInvitation(token);
    expect(accepted.statusCode, accepted.body).toBe(200);
    // Used: the same answer as a token nobody ever had.
    expect(await expectInvalid(token)).toEqual(await expectInvalid(randomBytes(32).toString('base64url')));
  });

  it("answers an operator's password link with the operators as the member; checked twice, the link still sets the password once", async () => {
    const operatorAdmin = await createUser(t, clock, { operatorId: operator.operatorId }, 'admin');
    const person = await createUser(t, clock, { operatorId: operator.operatorId }, 'moderator');
    const link = await passwordLink(operatorAdmin.headers, person.userId, 'admin');
    expect(link.kind).toBe('password_reset');
    const before = await rowsOf(person.userId);
    for (let i = 0; i < 2; i++) {
      const res = await check({ token: link.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.link).toEqual({
        purpose: 'password_reset',
        email: person.email,
        memberName: 'Redflag operators',
        expiresAt: link.expiresAt,
      });
    }
    expect(await rowsOf(person.userId)).toEqual(before);
    expect((await reset(link.token)).statusCode).toBe(200);
    await expectInvalid(link.token);
    expect((await reset(link.token)).json().data.code).toBe('LINK_INVALID');
  });

  it("answers a member's password link and an administrator's new invitation; the older invitation no longer works", async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'viewer');
    const link = await passwordLink(admin.headers, person.userId);
    expect((await check({ token: link.token })).json().data.link).toMatchObject({
      purpose: 'password_reset',
      email: person.email,
      memberName: company.businessName,
    });
    // Replaced by a newer one: the older stops working, for the check as for the accept.
    const newer = await passwordLink(admin.headers, person.userId);
    await expectInvalid(link.token);
    expect((await check({ token: newer.token })).statusCode).toBe(200);

    const invited = await invite(t, { companyId: company.companyId }, 'analyst');
    const again = await passwordLink(admin.headers, invited.userId);
    expect(again.kind).toBe('invitation');
    await expectInvalid(invited.token);
    expect((await check({ token: again.token })).json().data.link).toEqual({
      purpose: 'invitation',
      email: invited.email,
      memberName: company.businessName,
      expiresAt: again.expiresAt,
    });
    expect((await acceptInvitation(invited.token)).json().data.code).toBe('INVITATION_INVALID');
    expect((await acceptInvitation(again.token)).statusCode).toBe(200);
    await expectInvalid(again.token);
  });

  it('refuses the link of an account suspended or removed, and an invitation once its person has joined', async () => {
    const suspended = await createUser(t, clock, { companyId: company.companyId }, 'analyst');
    const link = await passwordLink(admin.headers, suspended.userId);
    expect((await check({ token: link.token })).statusCode).toBe(200);
    const suspend = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/users/${suspended.userId}/suspend`,
      headers: key(operator.apiKey),
    });
    expect(suspend.statusCode, suspend.body).toBe(200);
    await expectInvalid(link.token);
    expect((await reset(link.token)).json().data.code).toBe('LINK_INVALID');

    const removed = await invite(t, { companyId: company.companyId }, 'viewer');
    expect((await check({ token: removed.token })).statusCode).toBe(200);
    const remove = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/external/users/${removed.userId}`,
      headers: admin.headers,
    });
    expect(remove.statusCode, remove.body).toBe(200);
    await expectInvalid(removed.token);

    // Joined already: an invitation's link is for a person who has not.
    const joined = await invite(t, { companyId: company.companyId }, 'viewer');
    expect((await acceptInvitation(joined.token)).statusCode).toBe(200);
    await expectInvalid(joined.token);
  });

  it('refuses a malformed token as a field error, and a foreign origin; counts 20 a minute per address', async () => {
    for (const payload of [{ token: '' }, {}, { token: 'x'.repeat(201) }, { token: 42 }]) {
      const res = await check(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().data.code).toBe('VALIDATION_FAILED');
      expect(res.json().data.errors.map((e: { field: string }) => e.field)).toEqual(['token']);
    }
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/links/check',
      payload: { token: 'abc' },
      headers: { origin: 'https://elsewhere.example' },
      remoteAddress: nextAddress(),
    });
    expect(foreign.statusCode).toBe(403);

    const one = nextAddress();
    for (let i = 0; i < 20; i++) expect((await check({ token: `unknown-${i}` }, one)).statusCode).toBe(400);
    expect((await check({ token: 'unknown-21' }, one)).statusCode).toBe(429);
  });

  it('refuses a link past its end, to the second', async () => {
    const invited = await invite(t, { companyId: company.companyId }, 'analyst');
    const person = await createUser(t, clock, { companyId: company.companyId }, 'viewer');
    const link = await passwordLink(admin.headers, person.userId);
    clock.advance(2 * 3_600_000 - 1_000);
    expect((await check({ token: link.token })).statusCode).toBe(200);
    clock.advance(2_000);
    await expectInvalid(link.token);
    expect((await check({ token: invited.token })).statusCode).toBe(200);
    clock.advance(70 * 3_600_000);
    await expectInvalid(invited.token);
    expect((await acceptInvitation(invited.token)).json().data.code).toBe('INVITATION_INVALID');
  });
});
