import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePassword, createUser, PASSWORD, signIn, testClock } from './helpers/people.js';
import { createCompany } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
const clock = testClock();

beforeAll(async () => {
  t = await buildTestApp({ now: clock.now });
});
afterAll(() => t.close());

describe('a password change in a session', () => {
  it('counts a wrong current password as a failed sign-in: a session is no way to guess without limit', async () => {
    const { companyId } = await createCompany(t);
    const user = await createUser(t, clock, { companyId }, 'viewer');
    const change = (currentPassword: string) => changePassword(t, user.headers, currentPassword, 'an even longer new passphrase');
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await change(`wrong guess number ${i} here`)).statusCode);
    expect(codes).toEqual([401, 401, 401, 401, 401, 429]);
    // The right password is refused too until the wait is over, as sign-in would be.
    expect((await change(PASSWORD)).statusCode).toBe(429);
  });
});

describe('a password change and sign-in failures', () => {
  it('are counted apart: failed sign-ins against the address never keep its owner from changing the password', async () => {
    const { companyId } = await createCompany(t);
    const user = await createUser(t, clock, { companyId }, 'viewer');
    for (let i = 0; i < 5; i++) await signIn(t, user.email, `not the password ${i}`, undefined, '198.51.100.77');
    expect((await signIn(t, user.email, PASSWORD, undefined, '198.51.100.77')).statusCode).toBe(429);
    const changed = await changePassword(t, user.headers, PASSWORD, 'an even longer new passphrase');
    expect(changed.statusCode).toBe(200);
  });
});

describe('ended sessions', () => {
  it('are deleted by the sessions.purge job, in the one list of jobs', async () => {
    const { companyId } = await createCompany(t);
    const user = await createUser(t, clock, { companyId }, 'viewer');
    const sessions = async () =>
      (await t.database.db.selectFrom('user_sessions').select('token_hash').where('user_id', '=', user.userId).execute()).length;
    expect(await sessions()).toBe(1);
    await t.app.jobs.runNow('sessions.purge');
    expect(await sessions()).toBe(1);
    clock.advance(31 * 60_000);
    expect((await t.app.jobs.runNow('sessions.purge')).items).toBeGreaterThanOrEqual(1);
    expect(await sessions()).toBe(0);
  });
});
