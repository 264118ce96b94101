import type { LightMyRequestResponse } from 'fastify';
import { totpCode } from '../../src/modules/users/totp.js';
import type { TestApp } from './test-app.js';

let counter = 0;
export const PASSWORD = 'a long and unusual passphrase';

/** A clock the app reads instead of the system's: tests move it rather than wait. */
export function testClock(start = Date.now()) {
  let at = start;
  return {
    now: () => new Date(at),
    advance(ms: number) {
      at += ms;
    },
  };
}
export type TestClock = ReturnType<typeof testClock>;

export const uniqueEmail = (base = 'user') => `${base}.${process.pid}.${++counter}@bank.example`;

/** The session cookie a response set, as a Cookie header value. */
export function sessionCookie(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === 'redflag_session');
  if (!cookie) throw new Error(`no session cookie in ${response.statusCode} ${response.body}`);
  return `redflag_session=${cookie.value}`;
}

/** The headers of a browser request in a session: the cookie and this site's Origin. */
export function sessionHeaders(t: TestApp, cookie: string) {
  return { cookie, origin: new URL(t.config.publicUrl).origin };
}

export function tokenOf(inviteUrl: string): string {
  return new URL(inviteUrl).searchParams.get('token') as string;
}

export async function invite(
  t: TestApp,
  owner: { companyId: string } | { operatorId: string },
  role: string,
  email = uniqueEmail(role),
) {
  const r = await t.app.admin.users.invite({ ...owner, email, role });
  return { userId: r.userId, email, token: tokenOf(r.inviteUrl), inviteUrl: r.inviteUrl };
}

export function accept(t: TestApp, token: string, password = PASSWORD, name = 'Ada Obi') {
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/invitations/accept', payload: { token, password, name } });
}

export function signIn(t: TestApp, email: string, password = PASSWORD, totp?: string, remoteAddress?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/sign-in',
    payload: { email, password, ...(totp ? { totp } : {}) },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

/** Changes a signed-in user's password (`headers`: the session's). */
export function changePassword(t: TestApp, headers: Record<string, string>, currentPassword: string, newPassword: string) {
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/password', headers, payload: { currentPassword, newPassword } });
}

/** Enrols TOTP in a session; the clock then moves past the code's step so the next code is fresh. */
export async function enrolTotp(t: TestApp, cookie: string, clock: TestClock) {
  const started = await t.app.inject({ method: 'POST', url: '/api/v1/auth/totp', headers: sessionHeaders(t, cookie) });
  const { secret } = started.json().data as { secret: string };
  const confirmed = await t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/totp/confirm',
    headers: sessionHeaders(t, cookie),
    payload: { code: totpCode(secret, clock.now()) },
  });
  if (confirmed.statusCode !== 200) throw new Error(`TOTP confirm failed: ${confirmed.body}`);
  clock.advance(30_000);
  return { secret, recoveryCodes: confirmed.json().data.recoveryCodes as string[] };
}

/** A signed-in user with the role, second factor enrolled when the role needs one (or `totp: true`). */
export async function createUser(
  t: TestApp,
  clock: TestClock,
  owner: { companyId: string } | { operatorId: string },
  role: string,
  options: { totp?: boolean } = {},
) {
  const invited = await invite(t, owner, role);
  const accepted = await accept(t, invited.token);
  if (accepted.statusCode !== 200) throw new Error(`accept failed: ${accepted.body}`);
  const signedIn = await signIn(t, invited.email);
  if (signedIn.statusCode !== 200) throw new Error(`sign-in failed: ${signedIn.body}`);
  const cookie = sessionCookie(signedIn);
  const needsTotp = signedIn.json().data.totpEnrolmentRequired || options.totp;
  const totp = needsTotp ? await enrolTotp(t, cookie, clock) : undefined;
  return { ...invited, cookie, headers: sessionHeaders(t, cookie), secret: totp?.secret, recoveryCodes: totp?.recoveryCodes };
}
