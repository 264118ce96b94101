import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, createUser, PASSWORD, signIn, testClock, tokenOf, uniqueEmail } from './helpers/people.js';
import { createCompany, key } from './helpers/principals.js';
import { type ReceivedMail, startSmtpSink } from './helpers/smtp-sink.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const PORT = 4425;
const clock = testClock();
let t: TestApp;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let received: ReceivedMail[];

beforeAll(async () => {
  sink = await startSmtpSink(PORT);
  received = sink.received;
  t = await buildTestApp({
    now: clock.now,
    config: { smtpUrl: sink.url, mailFrom: 'Redflag <desk@redflag.example>' },
  });
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

describe('invitations by e-mail', () => {
  it('e-mails the invite URL when REDFLAG_SMTP_URL is set, and the e-mailed link works', async () => {
    const { apiKey } = await createCompany(t);
    const email = `mailed.${process.pid}@bank.example`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/users',
      headers: key(apiKey),
      payload: { email, role: 'analyst' },
    });
    expect(res.statusCode).toBe(201);
    const { inviteUrl, emailed } = res.json().data;
    expect(emailed).toBe(true);
    const mail = received.find((m) => m.to.includes(email));
    expect(mail?.body).toContain('From: Redflag <desk@redflag.example>');
    expect(mail?.body).toContain(inviteUrl);
    expect((await accept(t, tokenOf(inviteUrl))).statusCode).toBe(200);
  });

  it('still answers the invite URL when the mail server is down', async () => {
    const down = await buildTestApp({ config: { smtpUrl: 'smtp://127.0.0.1:4426' } });
    try {
      const { companyId } = await createCompany(down);
      const r = await down.app.admin.users.invite({ companyId, email: `down.${process.pid}@bank.example`, role: 'viewer' });
      expect(r.emailed).toBe(false);
      expect((await accept(down, tokenOf(r.inviteUrl))).statusCode).toBe(200);
    } finally {
      await down.close();
    }
  });
});

/** The password mails to an address (not its invitation), their bodies unfolded (quoted-printable folds long lines). */
const mailsTo = (email: string) =>
  received.filter((m) => m.to.includes(email) && m.body.includes('Subject: Choose a new Redflag password')).map((m) => m.body);

describe('forgot my password, by e-mail', () => {
  it('e-mails each account of the address a link, once in five minutes, and answers an unknown address alike', async () => {
    const person = await createUser(t, clock, { companyId: (await createCompany(t)).companyId }, 'analyst');
    const ask = (email: string) => t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email } });
    const known = await ask(person.email);
    const unknown = await ask(uniqueEmail('nobody'));
    expect(known.statusCode).toBe(202);
    expect(known.json()).toEqual(unknown.json());
    expect(known.json().data).toEqual({ mailed: true });

    // Sent after the answer: wait for it to arrive.
    await expect.poll(() => mailsTo(person.email).length, { timeout: 5_000 }).toBe(1);
    const body = mailsTo(person.email)[0] as string;
    expect(body).toContain('Someone asked to reset the password');
    const url = body.match(/https?:\/\/\S+\/password-reset\?token=[A-Za-z0-9_-]+/)?.[0] as string;
    expect(url).toBeDefined();

    // Asked again at once: no second mail.
    await ask(person.email);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailsTo(person.email)).toHaveLength(1);

    const done = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset/accept',
      payload: { token: tokenOf(url), password: 'a brand new and unusual passphrase' },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect((await signIn(t, person.email, PASSWORD)).statusCode).toBe(401);
    expect((await signIn(t, person.email, 'a brand new and unusual passphrase')).statusCode).toBe(200);

    // Five minutes later, a new one may be asked for.
    clock.advance(5 * 60_000 + 1_000);
    await ask(person.email);
    await expect.poll(() => mailsTo(person.email).length, { timeout: 5_000 }).toBe(2);
  });

  it("e-mails an administrator's link to the person alone, and a stranger's request does not cancel it", async () => {
    const owner = await createCompany(t);
    const admin = await createUser(t, clock, { companyId: owner.companyId }, 'admin');
    const person = await createUser(t, clock, { companyId: owner.companyId }, 'viewer');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/users/${person.userId}/password-link`,
      headers: admin.headers,
    });
    // E-mailed: then the administrator is not given the link (only the person holds it).
    expect(res.json().data).toMatchObject({ kind: 'password_reset', emailed: true, url: null });
    await expect.poll(() => mailsTo(person.email).length, { timeout: 5_000 }).toBe(1);
    const body = mailsTo(person.email)[0] as string;
    expect(body).toContain(
      `An administrator sent you a link to choose a new password for your Redflag account at ${owner.businessName}`,
    );
    const url = body.match(/https?:\/\/\S+\/password-reset\?token=[A-Za-z0-9_-]+/)?.[0] as string;

    // Anyone who knows the address asks from the sign-in page, three times a day at most.
    const ask = () => t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email: person.email } });
    // The administrator's counts: two more from the sign-in page, then none for the rest of the day.
    for (const expected of [2, 3, 3]) {
      clock.advance(5 * 60_000 + 1_000);
      expect((await ask()).statusCode).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect.poll(() => mailsTo(person.email).length, { timeout: 5_000 }).toBe(expected);
    }
    // The administrator's link still works.
    const done = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset/accept',
      payload: { token: tokenOf(url), password: 'a brand new and unusual passphrase' },
    });
    expect(done.statusCode, done.body).toBe(200);
  });

  it('lets the administrator who reset a second factor e-mail the password link, which goes to the person alone (decision 0136)', async () => {
    const owner = await createCompany(t);
    const admin = await createUser(t, clock, { companyId: owner.companyId }, 'admin');
    const person = await createUser(t, clock, { companyId: owner.companyId }, 'analyst', { totp: true });
    const post = (url: string) => t.app.inject({ method: 'POST', url, headers: admin.headers });
    const mailedTokens = async (n: number) => {
      await expect.poll(() => mailsTo(person.email).length, { timeout: 5_000 }).toBe(n);
      return mailsTo(person.email).map((body) =>
        tokenOf(body.match(/https?:\/\/\S+\/password-reset\?token=[A-Za-z0-9_-]+/)?.[0] as string),
      );
    };
    const use = (token: string, password = 'a brand new and unusual passphrase') =>
      t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset/accept', payload: { token, password } });

    const linkFirst = await post(`/api/v1/external/users/${person.userId}/password-link`);
    expect(linkFirst.json().data).toMatchObject({ emailed: true, url: null });
    // E-mailed, not handed over, and used by the person: the same administrator may reset the factor.
    const [mailed] = await mailedTokens(1);
    expect((await use(mailed as string)).statusCode).toBe(200);
    const reset = await post(`/api/v1/external/users/${person.userId}/second-factor/reset`);
    expect(reset.statusCode, reset.body).toBe(200);

    // After that reset the link still goes by e-mail; once it has gone, the links before it end.
    clock.advance(5 * 60_000 + 1_000);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email: person.email } })).statusCode,
    ).toBe(202);
    const [, asked] = await mailedTokens(2);
    const again = await post(`/api/v1/external/users/${person.userId}/password-link`);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().data).toMatchObject({ emailed: true, url: null });
    const [, , sent] = await mailedTokens(3);
    expect((await use(asked as string)).json().data.code).toBe('LINK_INVALID');
    expect((await use(sent as string, 'yet another unusual passphrase')).statusCode).toBe(200);
  });

  it('does not hand over a link it could not e-mail to the administrator who reset the second factor', async () => {
    const down = await buildTestApp({ now: clock.now, config: { smtpUrl: 'smtp://127.0.0.1:4426' } });
    try {
      const owner = await createCompany(down);
      const admin = await createUser(down, clock, { companyId: owner.companyId }, 'admin');
      const person = await createUser(down, clock, { companyId: owner.companyId }, 'analyst', { totp: true });
      const colleague = await createUser(down, clock, { companyId: owner.companyId }, 'admin');
      const post = (url: string) => down.app.inject({ method: 'POST', url, headers: admin.headers });
      expect((await post(`/api/v1/external/users/${person.userId}/second-factor/reset`)).statusCode).toBe(200);
      // Another administrator hands a link over first (the mail is down, so it is answered).
      const handed = await down.app.inject({
        method: 'POST',
        url: `/api/v1/external/users/${person.userId}/password-link`,
        headers: colleague.headers,
      });
      expect(handed.json().data).toMatchObject({ emailed: false, url: expect.stringContaining('token=') });
      const res = await post(`/api/v1/external/users/${person.userId}/password-link`);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().data.code).toBe('UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('60');
      expect(res.json().message).toContain('could not be e-mailed');
      expect(res.body).not.toContain('token=');
      // The link made for the mail was ended with it; the colleague's, made before, still works.
      const open = await sql<{ n: string }>`select count(*) as n from user_invitations
        where user_id = ${person.userId} and purpose = 'password_reset' and expires_at > now()`.execute(down.database.db);
      expect(Number(open.rows[0]?.n)).toBe(1);
      const used = await down.app.inject({
        method: 'POST',
        url: '/api/v1/auth/password-reset/accept',
        payload: { token: tokenOf(handed.json().data.url), password: 'a brand new and unusual passphrase' },
      });
      expect(used.statusCode, used.body).toBe(200);
    } finally {
      await down.close();
    }
  });

  it('tells a person their second factor was reset by an administrator', async () => {
    const owner = await createCompany(t);
    const admin = await createUser(t, clock, { companyId: owner.companyId }, 'admin');
    const person = await createUser(t, clock, { companyId: owner.companyId }, 'admin');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/users/${person.userId}/second-factor/reset`,
      headers: admin.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    const told = received
      .filter((m) => m.to.includes(person.email) && m.body.includes('Subject: Your Redflag second factor was reset'))
      .map((m) => m.body);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('If you did not ask for this, tell your administrator at once.');
  });
});
