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
} from './helpers/people.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
const clock = testClock();

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now });
});
afterAll(() => t.close());

const me = (cookie: string) => t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: sessionHeaders(t, cookie) });
const searchAs = (headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: '/reports/search', headers, payload: { identifier: 'phone', value: '08031234567' } });

describe('invite → accept → enrol TOTP → sign in → act → sign out', () => {
  it('walks a company admin through the whole flow', async () => {
    const { companyId, apiKey } = await createCompany(t);
    const invited = await invite(t, { companyId }, 'admin');
    expect(invited.inviteUrl).toMatch(/^http:\/\/127\.0\.0\.1:3000\/invitations\/accept\?token=[A-Za-z0-9_-]{43}$/);

    const accepted = await accept(t, invited.token);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().data.user).toMatchObject({
      id: invited.userId,
      email: invited.email,
      role: 'admin',
      status: 'active',
    });

    // First sign-in: password only, and the session may only enrol a second factor.
    const first = await signIn(t, invited.email);
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ totpEnrolmentRequired: true, user: { companyId, role: 'admin' } });
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toMatch(/Secure/); // plain-HTTP localhost
    const cookie = sessionCookie(first);
    const blocked = await searchAs(sessionHeaders(t, cookie));
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().data.code).toBe('TOTP_ENROLMENT_REQUIRED');
    expect((await me(cookie)).json().data).toMatchObject({ totpEnrolmentRequired: true, user: { totpEnrolled: false } });

    const { secret, recoveryCodes } = await enrolTotp(t, cookie, clock);
    expect(recoveryCodes).toHaveLength(10);
    expect((await searchAs(sessionHeaders(t, cookie))).statusCode).toBe(200);

    // Sign in again: now the code is required.
    const noCode = await signIn(t, invited.email);
    expect(noCode.statusCode).toBe(401);
    expect(noCode.json().data.code).toBe('TOTP_REQUIRED');
    const second = await signIn(t, invited.email, PASSWORD, totpCode(secret, clock.now()));
    expect(second.statusCode).toBe(200);
    const cookie2 = sessionCookie(second);

    // Act: a report filed in the session names the user; the audit rows name the user too.
    const filed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: sessionHeaders(t, cookie2),
      payload: reportBody({ userId: 'someone-else', showUploaderInfo: true }),
    });
    expect(filed.statusCode).toBe(201);
    const submission = await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${filed.json().data.id}`,
      headers: sessionHeaders(t, cookie2),
    });
    expect(submission.json().data.report.userId).toBe(invited.userId);
    const found = await searchAs(sessionHeaders(t, cookie2));
    expect(found.json().data.reports[0]).toMatchObject({ id: filed.json().data.id, userId: invited.userId });
    const audit = await t.app.inject({ method: 'GET', url: '/api/v1/external/audit', headers: key(apiKey) });
    const rows = audit.json().data.data as Array<{ action: string; keyId: string | null; userId: string | null }>;
    expect(
      rows
        .filter((r) => r.userId === invited.userId)
        .map((r) => r.action)
        .sort(),
    ).toEqual(['create', 'search', 'search']);
    expect(rows.every((r) => r.userId === invited.userId && r.keyId === null)).toBe(true);

    // Sign out: that cookie no longer works, at once.
    const out = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: sessionHeaders(t, cookie2) });
    expect(out.statusCode).toBe(200);
    const after = await searchAs(sessionHeaders(t, cookie2));
    expect(after.statusCode).toBe(401);
    expect(after.json().data.code).toBe('SESSION_INVALID');
    expect((await searchAs(sessionHeaders(t, cookie))).statusCode).toBe(200); // the other session lives on
  });

  it("signs a user out everywhere: every session of theirs ends, another user's lives on", async () => {
    const { companyId } = await createCompany(t);
    const analyst = await createUser(t, clock, { companyId }, 'analyst');
    const second = sessionHeaders(t, sessionCookie(await signIn(t, analyst.email)));
    const colleague = await createUser(t, clock, { companyId }, 'analyst');
    expect((await searchAs(second)).statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sign-out-everywhere', headers: analyst.headers });
    expect(out.statusCode).toBe(200);
    expect((await searchAs(analyst.headers)).statusCode).toBe(401);
    expect((await searchAs(second)).json().data.code).toBe('SESSION_INVALID');
    expect((await searchAs(colleague.headers)).statusCode).toBe(200);
    // Without a session it is refused like any session route.
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sign-out-everywhere' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('lets an analyst work without a second factor (not required for analysts by default)', async () => {
    const { companyId } = await createCompany(t);
    const analyst = await createUser(t, clock, { companyId }, 'analyst');
    expect(analyst.secret).toBeUndefined();
    expect((await searchAs(analyst.headers)).statusCode).toBe(200);
  });

  it('makes analysts enrol too with REDFLAG_TOTP_REQUIRED_FOR_ALL', async () => {
    const strict = await buildTestApp({ now: clock.now, config: { totpRequiredForAll: true } });
    try {
      const { companyId } = await createCompany(strict);
      const invited = await invite(strict, { companyId }, 'viewer');
      await accept(strict, invited.token);
      const res = await signIn(strict, invited.email);
      expect(res.json().data.totpEnrolmentRequired).toBe(true);
      const blocked = await strict.app.inject({
        method: 'POST',
        url: '/reports/search',
        headers: sessionHeaders(strict, sessionCookie(res)),
        payload: { identifier: 'phone', value: '08031234567' },
      });
      expect(blocked.json().data.code).toBe('TOTP_ENROLMENT_REQUIRED');
    } finally {
      await strict.close();
    }
  });

  it('makes operator users enrol, whatever their role', async () => {
    const { operatorId } = await createOperator(t);
    const invited = await invite(t, { operatorId }, 'moderator');
    await accept(t, invited.token);
    const res = await signIn(t, invited.email);
    expect(res.json().data.totpEnrolmentRequired).toBe(true);
  });
});

describe('sign-in failures', () => {
  it('answers a wrong password and an unknown e-mail alike', async () => {
    const { companyId } = await createCompany(t);
    const user = await createUser(t, clock, { companyId }, 'viewer');
    const wrong = await signIn(t, user.email, 'not the right passphrase', undefined, '10.1.0.1');
    const unknown = await signIn(t, 'nobody.at.all@bank.example', PASSWORD, undefined, '10.1.0.2');
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const body = (r: typeof wrong) => ({ ...r.json(), data: { ...r.json().data, requestId: 'x' } });
    expect(body(wrong)).toEqual(body(unknown));
    expect(wrong.json().data.code).toBe('INVALID_CREDENTIALS');
  });

  it('says a confirmation code of the wrong shape is one, and a wrong code is wrong', async () => {
    const { companyId } = await createCompany(t);
    const analyst = await createUser(t, clock, { companyId }, 'analyst');
    const started = await t.app.inject({ method: 'POST', url: '/api/v1/auth/totp', headers: analyst.headers });
    const { secret } = started.json().data as { secret: string };
    const confirm = (code: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/auth/totp/confirm', headers: analyst.headers, payload: { code } });
    expect((await confirm('12')).json().data.errors).toEqual([
      { field: 'code', message: 'must be the 6 digits your authenticator app shows now' },
    ]);
    // A code of an hour ago has the right shape and is wrong.
    expect((await confirm(totpCode(secret, new Date(clock.now().getTime() - 3_600_000)))).json().data.errors).toEqual([
      { field: 'code', message: 'is wrong or has already been used' },
    ]);
    expect((await confirm(totpCode(secret, clock.now()))).statusCode).toBe(200);
  });

  it('refuses a wrong TOTP code and a replayed one, and takes a recovery code once', async () => {
    const { companyId } = await createCompany(t);
    const admin = await createUser(t, clock, { companyId }, 'admin');
    const code = totpCode(admin.secret as string, clock.now());
    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await signIn(t, admin.email, PASSWORD, wrongCode, '10.2.0.1');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().data.code).toBe('TOTP_INVALID');
    expect((await signIn(t, admin.email, PASSWORD, code, '10.2.0.1')).statusCode).toBe(200);
    const replayed = await signIn(t, admin.email, PASSWORD, code, '10.2.0.1');
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json().data.code).toBe('TOTP_INVALID');

    const recovery = (admin.recoveryCodes as string[])[0] as string;
    expect((await signIn(t, admin.email, PASSWORD, recovery.toUpperCase(), '10.2.0.2')).statusCode).toBe(200);
    expect((await signIn(t, admin.email, PASSWORD, recovery, '10.2.0.2')).json().data.code).toBe('TOTP_INVALID');
  });

  it('throttles failed sign-ins per account, then per address, with Retry-After', async () => {
    const { companyId } = await createCompany(t);
    const user = await createUser(t, clock, { companyId }, 'viewer');
    for (let i = 0; i < 5; i++) {
      expect((await signIn(t, user.email, 'wrong passphrase here', undefined, `10.3.0.${i}`)).statusCode).toBe(401);
    }
    // The right password is refused too until the window ends: the limit is checked first.
    const limited = await signIn(t, user.email, PASSWORD, undefined, '10.3.1.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().data.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // An unknown address is throttled the same way (no account discovery through the limiter).
    for (let i = 0; i < 5; i++) await signIn(t, 'ghost.account@bank.example', PASSWORD, undefined, `10.4.0.${i}`);
    expect((await signIn(t, 'ghost.account@bank.example', PASSWORD, undefined, '10.4.1.1')).statusCode).toBe(429);

    // Per address: 20 failures over different accounts.
    for (let i = 0; i < 20; i++) await signIn(t, `spray${i}@bank.example`, PASSWORD, undefined, '10.5.0.1');
    const sprayed = await signIn(t, 'another.one@bank.example', PASSWORD, undefined, '10.5.0.1');
    expect(sprayed.statusCode).toBe(429);

    clock.advance(15 * 60_000);
    expect((await signIn(t, user.email, PASSWORD, undefined, '10.3.1.1')).statusCode).toBe(200);
  });
});

describe('invitations', () => {
  it('work once, and not after 72 hours', async () => {
    const { companyId } = await createCompany(t);
    const once = await invite(t, { companyId }, 'analyst');
    expect((await accept(t, once.token)).statusCode).toBe(200);
    const again = await accept(t, once.token);
    expect(again.statusCode).toBe(400);
    expect(again.json().data.code).toBe('INVITATION_INVALID');

    const late = await invite(t, { companyId }, 'analyst');
    clock.advance(72 * 3_600_000 + 1_000);
    const expired = await accept(t, late.token);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().data.code).toBe('INVITATION_INVALID');
    expect((await signIn(t, late.email)).statusCode).toBe(401);
  });

  it('refuse a short or common password, naming the field', async () => {
    const { companyId } = await createCompany(t);
    const invited = await invite(t, { companyId }, 'analyst');
    for (const password of ['short pass', 'Password1234', 'qwertyuiop123']) {
      const res = await accept(t, invited.token, password);
      expect(res.statusCode, password).toBe(400);
      expect(res.json().data.errors[0].field).toBe('password');
    }
    expect((await accept(t, invited.token)).statusCode).toBe(200);
  });
});

describe('sessions', () => {
  it('end after 30 idle minutes and after 12 hours whatever the activity', async () => {
    const { companyId } = await createCompany(t);
    const idle = await createUser(t, clock, { companyId }, 'viewer');
    clock.advance(29 * 60_000);
    expect((await me(idle.cookie)).statusCode).toBe(200);
    clock.advance(29 * 60_000);
    expect((await me(idle.cookie)).statusCode).toBe(200);
    clock.advance(30 * 60_000 + 1);
    const ended = await me(idle.cookie);
    expect(ended.statusCode).toBe(401);
    expect(ended.json().data.code).toBe('SESSION_INVALID');

    const busy = await createUser(t, clock, { companyId }, 'viewer');
    for (let i = 0; i < 24; i++) {
      clock.advance(29 * 60_000);
      expect((await me(busy.cookie)).statusCode).toBe(200);
    }
    clock.advance(30 * 60_000);
    expect((await me(busy.cookie)).statusCode).toBe(401);
  });

  it('refuse a state-changing request from a foreign Origin, or with none', async () => {
    const { companyId } = await createCompany(t);
    const analyst = await createUser(t, clock, { companyId }, 'analyst');
    for (const origin of ['https://evil.example', undefined]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/external/reports',
        headers: { cookie: analyst.cookie, ...(origin ? { origin } : {}) },
        payload: reportBody(),
      });
      expect(res.statusCode, String(origin)).toBe(403);
      expect(res.json().data.code).toBe('FORBIDDEN');
    }
    const foreignSignIn = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      headers: { origin: 'https://evil.example' },
      payload: { email: analyst.email, password: PASSWORD },
    });
    expect(foreignSignIn.statusCode).toBe(403);
    // A read needs no Origin.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { cookie: analyst.cookie } })).statusCode).toBe(
      200,
    );
  });

  it('end at once on a password change', async () => {
    const { companyId } = await createCompany(t);
    const user = await createUser(t, clock, { companyId }, 'viewer');
    const other = sessionCookie(await signIn(t, user.email));
    const changed = await changePassword(t, user.headers, PASSWORD, 'an even longer new passphrase');
    expect(changed.statusCode).toBe(200);
    expect((await me(user.cookie)).statusCode).toBe(401);
    expect((await me(other)).statusCode).toBe(401);
    expect((await signIn(t, user.email)).statusCode).toBe(401);
    expect((await signIn(t, user.email, 'an even longer new passphrase')).statusCode).toBe(200);
  });

  it('mark the cookie Secure when the service is not plain-HTTP localhost', async () => {
    const secure = await buildTestApp({ now: clock.now, config: { publicUrl: 'https://redflag.example' } });
    try {
      const { companyId } = await createCompany(secure);
      const invited = await invite(secure, { companyId }, 'viewer');
      await accept(secure, invited.token);
      const res = await signIn(secure, invited.email);
      expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await secure.close();
    }
  });
});
