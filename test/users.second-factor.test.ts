import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../src/modules/users/totp.js';
import { createUser, PASSWORD, signIn, testClock } from './helpers/people.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const clock = testClock();
let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now });
  company = await createCompany(t);
});
afterAll(() => t.close());

/** Sign-ins from addresses of their own: the auth routes allow 20 a minute per address. */
let address = 0;
const signInFrom = (email: string, totp?: string) =>
  signIn(t, email, PASSWORD, totp, `10.8.${Math.floor(++address / 200)}.${address % 200}`);

describe('new recovery codes', () => {
  it('need a code from the authenticator app; the earlier codes stop working, the new ones work once', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const ask = (code: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/auth/recovery-codes', headers: person.headers, payload: { code } });
    const old = person.recoveryCodes?.[0] as string;
    const byRecovery = await ask(old);
    expect(byRecovery.statusCode).toBe(400);
    expect(byRecovery.json().data.errors[0]).toMatchObject({ field: 'code' });
    expect((await ask('000000')).json().data.errors[0].message).toBe('is wrong or has already been used');

    clock.advance(30_000);
    const made = await ask(totpCode(person.secret as string, clock.now()));
    expect(made.statusCode, made.body).toBe(200);
    const codes = made.json().data.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    const trail = await t.app.inject({
      url: '/api/v1/external/audit?action=user_recovery_codes',
      headers: key(company.apiKey),
    });
    expect(trail.json().data.data).toEqual([expect.objectContaining({ userId: person.userId, subjectId: person.userId })]);
    expect((await signInFrom(person.email, old)).statusCode).toBe(401);
    expect((await signInFrom(person.email, codes[0])).statusCode).toBe(200);
    expect((await signInFrom(person.email, codes[0])).statusCode).toBe(401);
  });

  it('count wrong codes for the person: five, then 429', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    for (let i = 0; i < 5; i++) {
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/recovery-codes',
        headers: person.headers,
        payload: { code: '000000' },
      });
      expect(wrong.statusCode).toBe(400);
    }
    clock.advance(30_000);
    const blocked = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/recovery-codes',
      headers: person.headers,
      payload: { code: totpCode(person.secret as string, clock.now()) },
    });
    expect(blocked.statusCode).toBe(429);
    clock.advance(15 * 60_000);
  });
});

describe("an administrator's reset of a second factor", () => {
  const reset = (headers: Record<string, string>, userId: string, side: 'external' | 'admin' = 'external') =>
    t.app.inject({ method: 'POST', url: `/api/v1/${side}/users/${userId}/second-factor/reset`, headers });

  it('takes it away and ends every session; the password then leads to setting up a new one', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    // A person's to do, never an API key's.
    expect((await reset(key(company.apiKey), person.userId)).statusCode).toBe(403);
    const done = await reset(admin.headers, person.userId);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.user).toMatchObject({ id: person.userId, totpEnrolled: false });
    expect((await t.app.inject({ url: '/api/v1/auth/me', headers: person.headers })).statusCode).toBe(401);
    const again = await signInFrom(person.email);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.totpEnrolmentRequired).toBe(true);
    const codesLeft = await t.database.db
      .selectFrom('user_recovery_codes')
      .select('id')
      .where('user_id', '=', person.userId)
      .execute();
    expect(codesLeft).toEqual([]);
    const none = await reset(admin.headers, person.userId);
    expect(none.statusCode).toBe(409);
    expect(none.json().message).toContain('no second factor');

    const trail = await t.app.inject({ url: '/api/v1/external/audit?action=user_totp_reset', headers: key(company.apiKey) });
    expect(trail.json().data.data.map((row: { subjectId: string }) => row.subjectId)).toContain(person.userId);
  });

  it("is never one's own, is the member admin's or the operators', and another member's person is a 404", async () => {
    const admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const own = await reset(admin.headers, admin.userId);
    expect(own.statusCode).toBe(409);
    expect(own.json().message).toContain('ask another admin');

    const analyst = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    expect((await reset(analyst.headers, admin.userId)).statusCode).toBe(403);
    const other = await createCompany(t);
    const otherAdmin = await createUser(t, clock, { companyId: other.companyId }, 'admin');
    const foreign = await reset(otherAdmin.headers, analyst.userId);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('User not found');

    const operator = await createOperator(t);
    const operatorAdmin = await createUser(t, clock, { operatorId: operator.operatorId }, 'admin');
    expect((await reset(operatorAdmin.headers, analyst.userId, 'admin')).statusCode).toBe(200);
  });
});
