import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import * as migration0036 from '../src/db/migrations/2026_11_29_0036_account_recovery_two_people.js';
import * as migration0038 from '../src/db/migrations/2026_11_29_0038_watchlist_alerts.js';
import * as migration0039 from '../src/db/migrations/2026_11_29_0039_watchlist_alerts_daily.js';
import { createUser, testClock } from './helpers/people.js';
import { createCompany } from './helpers/principals.js';
import { buildTestApp } from './helpers/test-app.js';

const NAME = '2026_11_29_0036_account_recovery_two_people';
/** Later migrations that add columns to `users`: taken down and up again too, so the columns come back in their order. */
const LATER = ['2026_11_29_0038_watchlist_alerts', '2026_11_29_0039_watchlist_alerts_daily'];

it("migration 0036 learns the last week's resets and handed links from the trail, and ends the password links it cannot tell about", async () => {
  const clock = testClock();
  const t = await buildTestApp({ now: clock.now });
  try {
    const db = t.database.db;
    const company = await createCompany(t);
    const admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const lostPhone = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    const forgot = await createUser(t, clock, { companyId: company.companyId }, 'analyst');
    const reset = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    const post = (url: string) => t.app.inject({ method: 'POST', url, headers: admin.headers });
    expect((await post(`/api/v1/external/users/${lostPhone.userId}/second-factor/reset`)).statusCode).toBe(200);
    const handed = await post(`/api/v1/external/users/${forgot.userId}/password-link`);
    expect(handed.statusCode, handed.body).toBe(201);
    // A password the admin may know: set with a link handed to them.
    const setWith = await post(`/api/v1/external/users/${reset.userId}/password-link`);
    const accepted = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset/accept',
      payload: { token: new URL(setWith.json().data.url).searchParams.get('token'), password: 'a password the admin has seen' },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    // As a version before 0036 leaves them: neither who took the steps nor to whom the link went.
    // Its columns re-added after 0038's would reorder the table under the statements this process
    // prepared (one 503 each, prepared-pool.ts): 0038 and 0039 go down and up with it.
    await migration0039.down(db);
    await migration0038.down(db);
    await migration0036.down(db);
    await sql`delete from kysely_migration where name in (${NAME}, ${LATER[0]}, ${LATER[1]})`.execute(db);
    expect((await migrateToLatest(db)).applied).toEqual([NAME, ...LATER]);

    const learnt = await sql<{ by: string | null }>`select second_factor_reset_by as by from users
      where id = ${lostPhone.userId}`.execute(db);
    expect(learnt.rows[0]?.by).toBe(admin.userId);
    expect((await post(`/api/v1/external/users/${reset.userId}/second-factor/reset`)).statusCode).toBe(409);
    const refused = await post(`/api/v1/external/users/${lostPhone.userId}/password-link`);
    expect(refused.statusCode, refused.body).toBe(409);
    const used = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset/accept',
      payload: {
        token: new URL(handed.json().data.url).searchParams.get('token'),
        password: 'a brand new and unusual passphrase',
      },
    });
    expect(used.json().data.code).toBe('LINK_INVALID');
  } finally {
    await t.close();
  }
});
