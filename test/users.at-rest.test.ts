import { describe, expect, it } from 'vitest';
import { totpCode } from '../src/modules/users/totp.js';
import { containsClear, storedPieces } from './helpers/at-rest.js';
import { accept, enrolTotp, invite, PASSWORD, sessionCookie, sessionHeaders, signIn, testClock } from './helpers/people.js';
import { createCompany } from './helpers/principals.js';
import { buildTestApp } from './helpers/test-app.js';

describe('people secrets at rest and in the logs', () => {
  // Slow on a loaded machine: a fresh database, a dozen argon2 hashes, and the whole data directory read back.
  it('leaves no password, TOTP secret, recovery code, session id or invite token in the database or the log', {
    timeout: 120_000,
  }, async () => {
    const clock = testClock();
    const t = await buildTestApp({ config: { logLevel: 'trace' }, now: clock.now });
    const { companyId } = await createCompany(t);
    const invited = await invite(t, { companyId }, 'admin');
    expect((await accept(t, invited.token)).statusCode).toBe(200);
    const first = await signIn(t, invited.email);
    const firstCookie = sessionCookie(first);
    const { secret, recoveryCodes } = await enrolTotp(t, firstCookie, clock);
    const second = sessionCookie(await signIn(t, invited.email, PASSWORD, totpCode(secret, clock.now())));
    const third = sessionCookie(await signIn(t, invited.email, PASSWORD, recoveryCodes[0]));
    const newPassword = 'a brand new passphrase for the probe';
    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password',
      headers: sessionHeaders(t, third),
      payload: { currentPassword: PASSWORD, newPassword },
    });
    expect(changed.statusCode).toBe(200);
    const live = sessionCookie(await signIn(t, invited.email, newPassword, recoveryCodes[1]));
    // A failing sign-in's log lines too.
    await signIn(t, invited.email, 'a wrong passphrase we typed');
    await t.close({ keepFiles: true });

    const value = (cookie: string) => cookie.split('=')[1] as string;
    const needles = [
      PASSWORD,
      newPassword,
      'a wrong passphrase we typed',
      secret,
      ...recoveryCodes,
      ...recoveryCodes.map((c) => c.replaceAll('-', '')),
      invited.token,
      value(firstCookie),
      value(second),
      value(third),
      value(live),
    ];
    const logText = t.logLines.join('\n');
    expect(t.logLines.length).toBeGreaterThan(10);
    for (const needle of needles) expect(logText.includes(needle), `log holds ${needle}`).toBe(false);
    const pieces = await storedPieces(t);
    expect(pieces.length).toBeGreaterThan(0);
    // The control: the user's e-mail address is stored, so the search can see stored text at all.
    expect(pieces.some((p) => containsClear(p, invited.email))).toBe(true);
    for (const piece of pieces) {
      for (const needle of needles) expect(containsClear(piece, needle), `${piece.where} holds ${needle}`).toBe(false);
    }
  });
});
