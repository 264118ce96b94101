import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../src/modules/users/totp.js';
import {
  accept,
  changePassword,
  createUser,
  enrolTotp,
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
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const clock = testClock();
const NEW_PASSWORD = 'another long and unusual passphrase';
let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
/** The member's admin, signed in: these links are a person's to give, never an API key's. */
let admin: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now, config: { passwordResetTtlHours: 2 } });
  company = await createCompany(t);
  admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
});
afterAll(() => t.close());

const link = (headers: Record<string, string>, userId: string, side: 'external' | 'admin' = 'external') =>
  t.app.inject({ method: 'POST', url: `/api/v1/${side}/users/${userId}/password-link`, headers });
const reset = (token: string, password = NEW_PASSWORD) =>
  t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/accept', payload: { token, password } });
const me = (headers: Record<string, string>) => t.app.inject({ url: '/api/v1/auth/me', headers });
/** Sign-ins from addresses of their own: the auth routes allow 20 a minute per address. */
let address = 0;
const signInFrom = (email: string, password: string, totp?: string) =>
  signIn(t, email, password, totp, `10.9.${Math.floor(++address / 200)}.${address % 200}`);

describe("an administrator's link to choose a password", () => {
  it('sets a new password once, ends every session, and keeps the second factor', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const res = await link(admin.headers, person.userId);
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({ userId: person.userId, kind: 'password_reset', emailed: false });
    expect(data.url).toMatch(/\/password-reset\?token=[A-Za-z0-9_-]+$/);
    // Still signed in until the link is used; the link alone changes nothing.
    expect((await me(person.headers)).statusCode).toBe(200);

    const done = await reset(tokenOf(data.url));
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.user).toMatchObject({ id: person.userId, status: 'active', totpEnrolled: true });
    expect((await me(person.headers)).statusCode).toBe(401);
    expect((await reset(tokenOf(data.url))).json().data.code).toBe('LINK_INVALID');

    expect((await signInFrom(person.email, PASSWORD)).statusCode).toBe(401);
    const withoutCode = await signInFrom(person.email, NEW_PASSWORD);
    expect(withoutCode.json().data.code).toBe('TOTP_REQUIRED');
    clock.advance(30_000);
    const withCode = await signInFrom(person.email, NEW_PASSWORD, totpCode(person.secret as string, clock.now()));
    expect(withCode.statusCode, withCode.body).toBe(200);
  });

  it('sends a person who has not joined a new invitation, and the earlier one stops working', async () => {
    const invited = await invite(t, { companyId: company.companyId }, 'viewer');
    const res = await link(admin.headers, invited.userId);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.kind).toBe('invitation');
    expect(res.json().data.url).toContain('/invitations/accept?token=');
    expect((await accept(t, invited.token)).json().data.code).toBe('INVITATION_INVALID');
    // An invitation's token does not reset a password, nor the reverse.
    expect((await reset(tokenOf(res.json().data.url))).json().data.code).toBe('LINK_INVALID');
    expect((await accept(t, tokenOf(res.json().data.url))).statusCode).toBe(200);
    const active = await link(admin.headers, invited.userId);
    expect((await accept(t, tokenOf(active.json().data.url))).json().data.code).toBe('INVITATION_INVALID');
  });

  it('works for its time only, and a newer link ends the older one', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'analyst');
    const first = tokenOf((await link(admin.headers, person.userId)).json().data.url);
    const second = tokenOf((await link(admin.headers, person.userId)).json().data.url);
    expect((await reset(first)).json().data.code).toBe('LINK_INVALID');
    clock.advance(2 * 3_600_000 + 1_000);
    expect((await reset(second)).json().data.code).toBe('LINK_INVALID');
    // Two hours on, the admin's session has ended too (30 idle minutes): the next tests sign in again.
    admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    expect((await signInFrom(person.email, PASSWORD)).statusCode).toBe(200);
  });

  it("is the company admin's and the operators': another company's person is a 404 like a random id, a suspended one 409", async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'analyst');
    const other = await createCompany(t);
    const otherAdmin = await createUser(t, clock, { companyId: other.companyId }, 'admin');
    const foreign = await link(otherAdmin.headers, person.userId);
    const random = await link(otherAdmin.headers, '0b7f2c1e-3a4d-4e5f-8a6b-7c8d9e0f1a2b');
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe(random.json().message);
    const analyst = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/users/${person.userId}/password-link`,
      headers: person.headers,
    });
    expect(analyst.statusCode).toBe(403);

    const operator = await createOperator(t);
    const operatorAdmin = await createUser(t, clock, { operatorId: operator.operatorId }, 'admin');
    expect((await link(operatorAdmin.headers, person.userId, 'admin')).statusCode).toBe(201);
    // Never an API key's: whoever held one could take the account over.
    const byKey = await link(key(company.apiKey), person.userId);
    expect(byKey.statusCode).toBe(403);
    expect(byKey.json().message).toContain('not an API key');
    expect((await link(key(operator.apiKey), person.userId, 'admin')).statusCode).toBe(403);
    // Never one's own: a session alone must not set its owner's password.
    const own = await link(admin.headers, admin.userId);
    expect(own.statusCode).toBe(409);
    expect(own.json().message).toContain('Not for yourself');
    await t.app.inject({ method: 'POST', url: `/api/v1/admin/users/${person.userId}/suspend`, headers: key(operator.apiKey) });
    const suspended = await link(admin.headers, person.userId);
    expect(suspended.statusCode).toBe(409);
    expect(suspended.json().message).toContain('suspended');

    const trail = await t.app.inject({
      url: '/api/v1/external/audit?action=user_password_link&limit=100',
      headers: key(company.apiKey),
    });
    expect(trail.json().data.data.map((row: { subjectId: string }) => row.subjectId)).toContain(person.userId);
  });

  it('refuses a weak password with the field named, and the link still works after', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'viewer');
    const token = tokenOf((await link(admin.headers, person.userId)).json().data.url);
    const weak = await reset(token, 'password');
    expect(weak.statusCode).toBe(400);
    expect(weak.json().data.errors[0].field).toBe('password');
    expect((await reset(token)).statusCode).toBe(200);
    const trail = await t.app.inject({
      url: '/api/v1/external/audit?action=user_password_reset&limit=100',
      headers: key(company.apiKey),
    });
    expect(trail.json().data.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ subjectId: person.userId, userId: person.userId })]),
    );
  });

  it('takes two administrators to recover an account by a handed link: one cannot take both steps (decision 0136)', async () => {
    const first = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const second = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const secondFactorReset = (headers: Record<string, string>, userId: string) =>
      t.app.inject({ method: 'POST', url: `/api/v1/external/users/${userId}/second-factor/reset`, headers });
    const links = async (userId: string) =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from user_invitations where user_id = ${userId}`.execute(t.database.db))
          .rows[0]?.n,
      );
    /** Signs the person in with a new password (and their code, when they have a factor) and returns their headers. */
    const signedIn = async (person: { email: string; secret?: string | undefined }, password: string, withCode: boolean) => {
      clock.advance(30_000);
      const res = await signInFrom(person.email, password, withCode ? totpCode(person.secret as string, clock.now()) : undefined);
      expect(res.statusCode, res.body).toBe(200);
      return sessionCookie(res);
    };

    // Reset first: the same administrator is refused the link, and no link is made; another makes it.
    const lostPhone = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    expect((await secondFactorReset(first.headers, lostPhone.userId)).statusCode).toBe(200);
    const before = await links(lostPhone.userId);
    const refused = await link(first.headers, lostPhone.userId);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().data.code).toBe('INVALID_STATE');
    expect(refused.json().message).toContain('another administrator');
    expect(await links(lostPhone.userId)).toBe(before);
    const byAnother = await link(second.headers, lostPhone.userId);
    expect(byAnother.statusCode, byAnother.body).toBe(201);
    // It follows the account, not a clock: once the person has a new factor, the first may again.
    expect((await reset(tokenOf(byAnother.json().data.url))).statusCode).toBe(200);
    expect((await link(first.headers, lostPhone.userId)).statusCode).toBe(409);
    await enrolTotp(t, await signedIn(lostPhone, NEW_PASSWORD, false), clock);
    expect((await link(first.headers, lostPhone.userId)).statusCode).toBe(201);

    // Link first: the same administrator is refused the reset, which leaves the factor in place.
    const forgot = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    const handed = await link(first.headers, forgot.userId);
    expect(handed.statusCode).toBe(201);
    const resetRefused = await secondFactorReset(first.headers, forgot.userId);
    expect(resetRefused.statusCode, resetRefused.body).toBe(409);
    expect(resetRefused.json().message).toContain('another administrator');
    expect((await me(forgot.headers)).json().data.user.totpEnrolled).toBe(true);
    // Used, the link still counts: the password set with it may be known to whoever held it...
    expect((await reset(tokenOf(handed.json().data.url))).statusCode).toBe(200);
    expect((await secondFactorReset(first.headers, forgot.userId)).statusCode).toBe(409);
    // ...until the person chooses one of their own.
    const own = await changePassword(
      t,
      sessionHeaders(t, await signedIn(forgot, NEW_PASSWORD, true)),
      NEW_PASSWORD,
      'a password of my very own choosing',
    );
    expect(own.statusCode, own.body).toBe(200);
    expect((await secondFactorReset(first.headers, forgot.userId)).statusCode).toBe(200);

    // Another administrator may always take the other step.
    const forgotToo = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    expect((await link(first.headers, forgotToo.userId)).statusCode).toBe(201);
    expect((await secondFactorReset(second.headers, forgotToo.userId)).statusCode).toBe(200);

    // The operators' administrators are held to the same rule on their own routes.
    const operator = await createOperator(t);
    const operatorAdmin = await createUser(t, clock, { operatorId: operator.operatorId }, 'admin');
    const viaOperators = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    expect((await link(operatorAdmin.headers, viaOperators.userId, 'admin')).statusCode).toBe(201);
    const operatorReset = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/users/${viaOperators.userId}/second-factor/reset`,
      headers: operatorAdmin.headers,
    });
    expect(operatorReset.statusCode, operatorReset.body).toBe(409);
  });
});

describe('forgot my password, on a service without e-mail', () => {
  it('answers 202 alike for any address, sends nothing, and says to ask an administrator', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'viewer');
    const ask = (email: string) => t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email } });
    const known = await ask(person.email);
    const unknown = await ask(uniqueEmail('nobody'));
    expect(known.statusCode).toBe(202);
    expect(known.json()).toEqual(unknown.json());
    expect(known.json().data).toEqual({ mailed: false });
    expect(known.json().message).toContain('ask an administrator');
    const links = await t.database.db
      .selectFrom('user_invitations')
      .select('id')
      .where('user_id', '=', person.userId)
      .where('purpose', '=', 'password_reset')
      .execute();
    expect(links).toEqual([]);
    const bad = await ask('not an address');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors[0].field).toBe('email');
    expect((await me(sessionHeaders(t, person.cookie))).statusCode).toBe(200);
  });
});
