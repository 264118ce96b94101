import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, PASSWORD, signIn, testClock } from './helpers/people.js';
import { createCompany } from './helpers/principals.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';

const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(redisUrl)('failed sign-ins counted in Redis', () => {
  const clock = testClock();
  let a: TestApp;
  let b: Awaited<ReturnType<typeof buildSiblingApp>>;

  beforeAll(async () => {
    const redisPrefix = `redflag-test-${randomBytes(5).toString('hex')}:`;
    a = await buildTestApp({ config: { redisUrl, redisPrefix }, now: clock.now });
    b = await buildSiblingApp(a, {}, clock.now);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('throttles an account on every instance once it failed five times on any', async () => {
    const { companyId } = await createCompany(a);
    const user = await createUser(a, clock, { companyId }, 'viewer');
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? a.app : b;
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/auth/sign-in',
        payload: { email: user.email, password: 'a wrong passphrase' },
        remoteAddress: `10.9.0.${i}`,
      });
      expect(res.statusCode).toBe(401);
    }
    const onB = await b.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email: user.email, password: PASSWORD },
      remoteAddress: '10.9.1.1',
    });
    expect(onB.statusCode).toBe(429);
    expect(Number(onB.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signIn(a, user.email, PASSWORD, undefined, '10.9.1.2')).statusCode).toBe(429);
  });
});
