import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../src/modules/users/totp.js';
import {
  accept,
  enrolTotp,
  invite,
  PASSWORD,
  sessionCookie,
  sessionHeaders,
  signIn,
  testClock,
  uniqueEmail,
} from './helpers/people.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

// Decision 0121: an address has at most one live account per member, and a member learns nothing
// about the address's accounts at other members.
let t: TestApp;
const clock = testClock();

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now });
});
afterAll(() => t.close());

const inviteOverHttp = (apiKey: string, email: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/external/users', headers: key(apiKey), payload: { email, role: 'analyst' } });

async function accountAt(owner: { companyId: string } | { operatorId: string }, email: string, password = PASSWORD) {
  const invited = await invite(t, owner, 'companyId' in owner ? 'analyst' : 'moderator', email);
  const accepted = await accept(t, invited.token, password);
  expect(accepted.statusCode).toBe(200);
  return invited.userId;
}

describe('an address with accounts at several members', () => {
  it('is invited by a second member as by the first: no 409 tells it works elsewhere', async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const email = uniqueEmail('shared');
    expect((await inviteOverHttp(a.apiKey, email)).statusCode).toBe(201);
    const atB = await inviteOverHttp(b.apiKey, email.toUpperCase());
    expect(atB.statusCode).toBe(201);
    expect(atB.json().data.user).toMatchObject({ email, companyId: b.companyId, status: 'invited' });
    // Within one member the address is still one account.
    const again = await inviteOverHttp(a.apiKey, email);
    expect(again.statusCode).toBe(409);
    expect(again.json().data.code).toBe('INVALID_STATE');
  });

  it('lets two invitations of one address at one member race: one account, one 409', async () => {
    const a = await createCompany(t);
    const email = uniqueEmail('race');
    const answers = await Promise.all([1, 2, 3].map(() => inviteOverHttp(a.apiKey, email)));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/external/users', headers: key(a.apiKey) });
    expect(listed.json().data.users.filter((u: { email: string }) => u.email === email)).toHaveLength(1);
  });

  it('signs in to the account the password opens, without asking, when the passwords differ', async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const email = uniqueEmail('two-passwords');
    const atA = await accountAt({ companyId: a.companyId }, email, `${PASSWORD} at a`);
    const atB = await accountAt({ companyId: b.companyId }, email, `${PASSWORD} at b`);
    const intoA = await signIn(t, email, `${PASSWORD} at a`);
    expect(intoA.statusCode).toBe(200);
    expect(intoA.json().data.user).toMatchObject({ id: atA, companyId: a.companyId });
    const intoB = await signIn(t, email, `${PASSWORD} at b`);
    expect(intoB.json().data.user).toMatchObject({ id: atB, companyId: b.companyId });
    const wrong = await signIn(t, email, `${PASSWORD} at c`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().data.code).toBe('INVALID_CREDENTIALS');
    expect(wrong.json().data.members).toBeUndefined();
  });

  it('does not offer a member where the account is suspended: it signs in to the one left', async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const email = uniqueEmail('suspended-at-a');
    const atA = await accountAt({ companyId: a.companyId }, email);
    const atB = await accountAt({ companyId: b.companyId }, email);
    await t.app.admin.users.setSuspended(atA, true);
    const signedIn = await signIn(t, email);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().data.user.id).toBe(atB);
  });

  it('names no member to a password alone when the accounts have a second factor: the code picks the account', async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const email = uniqueEmail('two-factors');
    const secrets: Record<string, string> = {};
    for (const member of [a, b]) {
      await accountAt({ companyId: member.companyId }, email);
      const first = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/sign-in',
        payload: { email, password: PASSWORD, memberId: member.companyId },
      });
      secrets[member.companyId] = (await enrolTotp(t, sessionCookie(first), clock)).secret;
    }
    const bare = await signIn(t, email);
    expect(bare.statusCode).toBe(401);
    expect(bare.json().data).toEqual({ code: 'TOTP_REQUIRED', requestId: expect.any(String) });
    // B's code fits B's account alone: signed in there, no question asked, no member named.
    const withB = await signIn(t, email, PASSWORD, totpCode(secrets[b.companyId] as string, clock.now()));
    expect(withB.statusCode).toBe(200);
    expect(withB.json().data.member.id).toBe(b.companyId);
    // A code that fits neither is a wrong code.
    clock.advance(30_000);
    const wrong = await signIn(
      t,
      email,
      PASSWORD,
      totpCode(secrets[b.companyId] as string, new Date(clock.now().getTime() - 3_600_000)),
    );
    expect(wrong.json().data).toEqual({ code: 'TOTP_INVALID', requestId: expect.any(String) });
  });

  it("counts a wrong code as a failed sign-in though another member's account has no second factor", async () => {
    const a = await createCompany(t);
    const b = await createCompany(t);
    const email = uniqueEmail('guarded-and-open');
    await accountAt({ companyId: a.companyId }, email);
    await accountAt({ companyId: b.companyId }, email);
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email, password: PASSWORD, memberId: a.companyId },
    });
    const { secret } = await enrolTotp(t, sessionCookie(first), clock);
    // Guessing A's code never lands at B, and the guesses are throttled like any failed sign-in.
    const guesses = [];
    for (const guess of ['100000', '100001', '100002', '100003', '100004', '100005'])
      guesses.push((await signIn(t, email, PASSWORD, guess)).json().data.code);
    expect(guesses).toEqual(['TOTP_INVALID', 'TOTP_INVALID', 'TOTP_INVALID', 'TOTP_INVALID', 'TOTP_INVALID', 'RATE_LIMITED']);
    expect((await signIn(t, email, PASSWORD, totpCode(secret, clock.now()))).statusCode).toBe(429);
  });

  it('names, without a code, only the members the password alone opens; one of them is then chosen', async () => {
    const a = await createCompany(t);
    const b = await createCompany(t, { businessName: `Open Bank ${process.pid}` });
    const email = uniqueEmail('guarded-or-open');
    await accountAt({ companyId: a.companyId }, email);
    const atB = await accountAt({ companyId: b.companyId }, email);
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email, password: PASSWORD, memberId: a.companyId },
      remoteAddress: '198.51.100.91',
    });
    await enrolTotp(t, sessionCookie(first), clock);
    const bare = await signIn(t, email, PASSWORD, undefined, '198.51.100.91');
    expect(bare.statusCode).toBe(401);
    // A is not named (its code has not been shown); B, which the password opens anyway, is.
    expect(bare.json().data).toEqual({
      code: 'TOTP_REQUIRED',
      requestId: expect.any(String),
      members: [{ memberId: b.companyId, name: b.businessName }],
    });
    const chosen = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email, password: PASSWORD, memberId: b.companyId },
      remoteAddress: '198.51.100.91',
    });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json().data.user.id).toBe(atB);
  });

  it('asks which member when the password opens several, naming only those, and takes memberId', async () => {
    const a = await createCompany(t, { businessName: `Alpha MFB ${process.pid}` });
    const b = await createCompany(t, { businessName: `Beta Bank ${process.pid}` });
    const c = await createCompany(t);
    const operator = await createOperator(t);
    const email = uniqueEmail('same-password');
    await accountAt({ companyId: a.companyId }, email);
    const atB = await accountAt({ companyId: b.companyId }, email);
    await accountAt({ companyId: c.companyId }, email, `${PASSWORD} elsewhere`);
    const atOperators = await accountAt({ operatorId: operator.operatorId }, email);

    const asked = await signIn(t, email);
    expect(asked.statusCode).toBe(409);
    expect(asked.headers['set-cookie']).toBeUndefined();
    expect(asked.json()).toMatchObject({
      success: false,
      message: 'This address has an account at more than one member; choose one',
      data: {
        code: 'MEMBER_CHOICE_REQUIRED',
        members: [
          { memberId: a.companyId, name: a.businessName },
          { memberId: b.companyId, name: b.businessName },
          { memberId: operator.operatorId, name: expect.any(String) },
        ],
      },
    });

    const chosen = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email, password: PASSWORD, memberId: b.companyId.toUpperCase() },
    });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json().data.user).toMatchObject({ id: atB, companyId: b.companyId });
    // The desk says whose it is: the member is named in the answer and by /me.
    expect(chosen.json().data.member).toEqual({ id: b.companyId, name: b.businessName });
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: sessionHeaders(t, sessionCookie(chosen)) });
    expect(me.json().data.member).toEqual({ id: b.companyId, name: b.businessName });
    // An operator account asks for its second factor like any other, once chosen.
    const operatorChosen = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email, password: PASSWORD, memberId: operator.operatorId },
    });
    expect(operatorChosen.json().data.user).toMatchObject({ id: atOperators, operatorId: operator.operatorId });
    expect(operatorChosen.json().data.totpEnrolmentRequired).toBe(true);
    // Its authenticator entry names the operators, so it is told apart from the bank's.
    const enrol = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/totp',
      headers: sessionHeaders(t, sessionCookie(operatorChosen)),
    });
    expect(decodeURIComponent(enrol.json().data.otpauthUrl)).toContain(`issuer=Redflag (${operator.name})`);

    // A member where the password does not open the account, or where there is none: the usual 401.
    for (const memberId of [c.companyId, (await createCompany(t)).companyId]) {
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/sign-in',
        payload: { email, password: PASSWORD, memberId },
      });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().data.code).toBe('INVALID_CREDENTIALS');
    }
    const notAnId = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email, password: PASSWORD, memberId: 'bank' },
    });
    expect(notAnId.statusCode).toBe(400);
    expect(notAnId.json().data.errors).toEqual([{ field: 'memberId', message: expect.stringMatching(/must be an id/) }]);
  });
});
