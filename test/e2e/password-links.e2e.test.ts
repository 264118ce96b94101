import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/modules/users/totp.js';
import { accept, createUser, invite, PASSWORD, testClock, tokenOf } from '../helpers/people.js';
import { createCompany, key } from '../helpers/principals.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { fitsWidth, hasChromium, launchChromium, screenshot, seriousViolations, signedInPhonePage } from './browser.js';

const PORT = 4808;
const base = `http://127.0.0.1:${PORT}`;
const clock = testClock(Date.now());
const NEW_PASSWORD = 'a fresh and memorable passphrase';
let t: TestApp;
let browser: Browser;
let page: Page;
let company: Awaited<ReturnType<typeof createCompany>>;

/** What the notice at the top of the desk says once it says something. */
const notice = () => page.textContent('#notice');

describe.skipIf(!hasChromium)('passwords and second factors, in the desk at 360 px', () => {
  beforeAll(async () => {
    t = await buildTestApp({ config: { publicUrl: base }, now: clock.now });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    company = await createCompany(t);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('"Forgot your password?" keeps the address typed and, without e-mail, says to ask an administrator', async () => {
    await page.goto(base);
    await page.fill('#email', 'ada.obi@bank.example');
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    expect(await page.isVisible('#view-forgot')).toBe(true);
    expect(await page.inputValue('#forgot-email')).toBe('ada.obi@bank.example');
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await expect.poll(() => page.textContent('#forgot-message')).toContain('Ask an administrator of your member');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole('button', { name: 'Back to sign-in' }).click();
    expect(await page.isVisible('#view-sign-in')).toBe(true);
  });

  it("an administrator's link: the token leaves the address bar, a weak password is refused, the new one signs in; the link works once", async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'analyst');
    const admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const link = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/users/${person.userId}/password-link`,
      headers: admin.headers,
    });
    const url = new URL(link.json().data.url);
    await page.goto(`${base}${url.pathname}${url.search}`);
    await page.waitForSelector('#view-reset', { state: 'visible' });
    expect(new URL(page.url()).search).toBe('');
    // Checked on opening: whose account it is and until when, the address where a password manager finds it.
    // The address stays out of the heading, which becomes the window's title (kept in the browser's history).
    expect(await page.textContent('#view-reset h1')).toBe('Choose a new password');
    expect(await page.title()).not.toContain('@');
    expect(await page.inputValue('#reset-email')).toBe(person.email);
    expect(await page.getAttribute('#reset-email', 'autocomplete')).toBe('username');
    expect(await page.getAttribute('#reset-email', 'readonly')).not.toBeNull();
    expect(await page.getAttribute('#reset-password', 'autocomplete')).toBe('new-password');
    expect(await page.textContent('#reset-until')).toMatch(/^This link works until \d{1,2} \w{3} \d{4}, \d{2}:\d{2}\.$/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('reset-password');
    // A screen reader hears whose account and until when with the field the keyboard lands on.
    expect(await page.getAttribute('#reset-password', 'aria-describedby')).toContain('reset-until');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'password-reset');

    await page.fill('#reset-password', 'password');
    await page.getByRole('button', { name: 'Set my password' }).click();
    await expect.poll(() => page.getAttribute('#reset-password', 'aria-invalid')).toBe('true');
    await page.fill('#reset-password', NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set my password' }).click();
    await expect.poll(notice).toContain('Your new password is set');
    expect(await page.inputValue('#email')).toBe(person.email);
    await page.fill('#password', NEW_PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForSelector('#view-search', { state: 'visible' });

    // The same link again, in a fresh tab: it says so on opening, with no form to fill, and offers a new one.
    const again = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    await again.goto(`${base}${url.pathname}${url.search}`);
    await expect.poll(() => again.textContent('#notice')).toContain('already been used or has expired');
    expect(await again.isVisible('#view-forgot')).toBe(true);
    expect(await again.isVisible('#reset-form')).toBe(false);
    expect(await again.evaluate(() => document.activeElement?.id)).toBe('forgot-email');
    expect(await seriousViolations(again)).toEqual([]);
    await again.close();
  });

  it('an invitation names the member and the address before anything is typed, and the person joins', async () => {
    const invited = await invite(t, { companyId: company.companyId }, 'analyst');
    const fresh = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    try {
      const url = new URL(invited.inviteUrl);
      await fresh.goto(`${base}${url.pathname}${url.search}`);
      await expect.poll(() => fresh.isVisible('#view-accept')).toBe(true);
      expect(await fresh.textContent('#view-accept h1')).toBe(`Join ${company.businessName} on Redflag`);
      expect(await fresh.title()).toBe(`Join ${company.businessName} on Redflag — Redflag desk`);
      expect(await fresh.inputValue('#accept-email')).toBe(invited.email);
      expect(await fresh.getAttribute('#accept-email', 'autocomplete')).toBe('username');
      expect(await fresh.getAttribute('#accept-email', 'readonly')).not.toBeNull();
      expect(await fresh.getAttribute('#accept-password', 'autocomplete')).toBe('new-password');
      expect(await fresh.textContent('#accept-until')).toContain('This invitation works until');
      expect(await fresh.textContent('#notice')).toBe('');
      expect(await fresh.evaluate(() => document.activeElement?.id)).toBe('accept-name');
      expect(await fresh.getAttribute('#accept-name', 'aria-describedby')).toBe('accept-title accept-until');
      expect(await seriousViolations(fresh)).toEqual([]);
      expect(await fitsWidth(fresh)).toBe(true);
      await screenshot(fresh, 'invitation');

      await fresh.fill('#accept-name', 'Ada Obi');
      await fresh.fill('#accept-password', NEW_PASSWORD);
      await fresh.getByRole('button', { name: 'Join' }).click();
      await expect.poll(() => fresh.textContent('#notice')).toContain('You have joined');
      expect(await fresh.inputValue('#email')).toBe(invited.email);
    } finally {
      await fresh.close();
    }
  });

  it('a used invitation says so on opening, with no form; one used while its page was open says so after sending', async () => {
    const used = await invite(t, { companyId: company.companyId }, 'viewer');
    expect((await accept(t, tokenOf(used.inviteUrl))).statusCode).toBe(200);
    const fresh = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    try {
      const url = new URL(used.inviteUrl);
      await fresh.goto(`${base}${url.pathname}${url.search}`);
      await expect.poll(() => fresh.textContent('#notice')).toContain('This invitation has already been used or has expired');
      expect(await fresh.textContent('#notice')).toContain('If you joined already, sign in below');
      expect(await fresh.isVisible('#view-sign-in')).toBe(true);
      expect(await fresh.isVisible('#accept-form')).toBe(false);
      expect(new URL(fresh.url()).search).toBe('');
      expect(await seriousViolations(fresh)).toEqual([]);

      const later = await invite(t, { companyId: company.companyId }, 'viewer');
      const laterUrl = new URL(later.inviteUrl);
      await fresh.goto(`${base}${laterUrl.pathname}${laterUrl.search}`);
      await expect.poll(() => fresh.isVisible('#view-accept')).toBe(true);
      expect((await accept(t, tokenOf(later.inviteUrl))).statusCode).toBe(200);
      await fresh.fill('#accept-name', 'Ada Obi');
      await fresh.fill('#accept-password', NEW_PASSWORD);
      await fresh.getByRole('button', { name: 'Join' }).click();
      await expect.poll(() => fresh.textContent('#notice')).toContain('If you joined already, sign in below');
      expect(await fresh.isVisible('#view-sign-in')).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it('while the check runs it says so; when the check fails the form opens anyway, and the link still works', async () => {
    const invited = await invite(t, { companyId: company.companyId }, 'viewer');
    const fresh = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    try {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await fresh.route('**/api/v1/auth/links/check', async (route) => {
        await held;
        await route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ success: false, message: 'Unavailable', data: { code: 'UNAVAILABLE', requestId: 'e2e' } }),
        });
      });
      const url = new URL(invited.inviteUrl);
      await fresh.goto(`${base}${url.pathname}${url.search}`);
      await expect.poll(() => fresh.textContent('#notice')).toBe('Checking your link…');
      expect(await fresh.isVisible('#accept-form')).toBe(false);
      release();
      await expect.poll(() => fresh.isVisible('#view-accept')).toBe(true);
      expect(await fresh.textContent('#view-accept h1')).toBe('Join your team on Redflag');
      expect(await fresh.isVisible('#accept-email')).toBe(false);
      expect(await fresh.textContent('#notice')).toBe('');
      expect(await fresh.evaluate(() => document.activeElement?.id)).toBe('accept-name');
      await fresh.fill('#accept-name', 'Ada Obi');
      await fresh.fill('#accept-password', NEW_PASSWORD);
      await fresh.getByRole('button', { name: 'Join' }).click();
      await expect.poll(() => fresh.textContent('#notice')).toContain('You have joined');

      // No answer at all (the network): the same.
      await fresh.unroute('**/api/v1/auth/links/check');
      await fresh.route('**/api/v1/auth/links/check', (route) => route.abort('failed'));
      const other = await invite(t, { companyId: company.companyId }, 'viewer');
      const otherUrl = new URL(other.inviteUrl);
      await fresh.goto(`${base}${otherUrl.pathname}${otherUrl.search}`);
      await expect.poll(() => fresh.isVisible('#view-accept')).toBe(true);
      expect(await fresh.textContent('#view-accept h1')).toBe('Join your team on Redflag');
    } finally {
      await fresh.close();
    }
  });

  it('"Your account": who one is, new recovery codes with a code from the app, and a new password that signs out', async () => {
    const person = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const signedIn = await signedInPhonePage(base, person, clock.now);
    const mine = signedIn.page;
    try {
      await mine.getByRole('button', { name: 'Your account' }).click();
      await expect.poll(() => mine.textContent('#account-facts')).toContain(person.email);
      expect(await mine.textContent('#account-facts')).toContain('On: a code from your authenticator app');
      expect(await mine.isVisible('#totp-setup-box')).toBe(false);
      expect(await seriousViolations(mine)).toEqual([]);
      expect(await fitsWidth(mine)).toBe(true);

      clock.advance(30_000);
      await mine.fill('#new-codes-code', totpCode(person.secret as string, clock.now()));
      await mine.getByRole('button', { name: 'Make new recovery codes' }).click();
      await expect.poll(() => mine.locator('#new-codes-list li').count()).toBe(10);
      await screenshot(mine, 'account');

      await mine.fill('#current-password', 'not my password at all');
      await mine.fill('#new-password', NEW_PASSWORD);
      await mine.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => mine.getAttribute('#current-password', 'aria-invalid')).toBe('true');
      expect(await mine.textContent('#view-account')).toContain('Is not your current password');
      expect(await mine.evaluate(() => document.activeElement?.id)).toBe('current-password');
      await mine.fill('#current-password', PASSWORD);
      await mine.getByRole('button', { name: 'Change password' }).click();
      await expect.poll(() => mine.textContent('#notice')).toContain('Your password is changed');
      await expect.poll(() => mine.isVisible('#view-sign-in')).toBe(true);
    } finally {
      await signedIn.browser.close();
    }
  });

  it('a person without a second factor is offered one on their account page', async () => {
    const analyst = await createUser(t, clock, { companyId: company.companyId }, 'analyst');
    const fresh = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    await fresh.goto(base);
    await fresh.fill('#email', analyst.email);
    await fresh.fill('#password', PASSWORD);
    await fresh.click('#sign-in-form button[type=submit]');
    await fresh.waitForSelector('#view-search', { state: 'visible' });
    await fresh.getByRole('button', { name: 'Your account' }).click();
    await expect.poll(() => fresh.textContent('#account-facts')).toContain('Off: your password alone');
    expect(await fresh.isVisible('#recovery-box')).toBe(false);
    await fresh.getByRole('button', { name: 'Set up a second factor' }).click();
    await expect.poll(() => fresh.textContent('#totp-secret')).not.toBe('');
    expect(await fresh.isVisible('#view-enrol')).toBe(true);
    // Changed their mind: back to the account page, the key gone from the screen.
    await fresh.getByRole('button', { name: 'Not now: back to your account' }).click();
    await expect.poll(() => fresh.isVisible('#view-account')).toBe(true);
    expect(await fresh.textContent('#totp-secret')).toBe('');
    await fresh.close();
  });

  it("the Team page: a colleague's password link to hand over, a lost phone's second factor reset after asking, and never both by one admin", async () => {
    const admin = await createUser(t, clock, { companyId: company.companyId }, 'admin');
    const forgot = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    const lostPhone = await createUser(t, clock, { companyId: company.companyId }, 'analyst', { totp: true });
    const signedIn = await signedInPhonePage(base, admin, clock.now);
    const desk = signedIn.page;
    const users = async () =>
      (await t.app.inject({ url: '/api/v1/external/users', headers: key(company.apiKey) })).json().data.users as Array<{
        id: string;
        totpEnrolled: boolean;
      }>;
    const enrolled = async (userId: string) => (await users()).find((u) => u.id === userId)?.totpEnrolled;
    const resetButton = (email: string) => desk.getByRole('button', { name: `Reset the second factor of ${email}` });
    const linkButton = (email: string) => desk.getByRole('button', { name: `Send ${email} a link to choose a new password` });
    try {
      await desk.click('button[data-view="team"]');
      await linkButton(forgot.email).click();
      await expect.poll(() => desk.inputValue('#person-link')).toMatch(/\/password-reset\?token=/);
      expect(await desk.textContent('#team-message')).toContain(`send it to ${forgot.email} yourself`);
      expect(await desk.getAttribute('#team-message', 'data-tone')).toBe('ok');
      expect(await seriousViolations(desk)).toEqual([]);
      expect(await fitsWidth(desk)).toBe(true);

      // The admin holding this person's link cannot also take their second factor away (decision 0136).
      await resetButton(forgot.email).click();
      await desk.getByRole('dialog').getByRole('button', { name: 'Reset second factor' }).click();
      await expect.poll(() => desk.textContent('#team-message')).toContain('another administrator');
      expect(await desk.getAttribute('#team-message', 'data-tone')).toBe('error');
      expect(await desk.textContent('#team-message')).toMatch(/^Not done for Ada Obi\. You were handed/);
      // Read first (far above the card on a phone), and the link handed over a moment ago is still there.
      expect(await desk.evaluate(() => document.activeElement?.id)).toBe('team-message');
      expect(await desk.inputValue('#person-link')).toMatch(/\/password-reset\?token=/);
      expect(await enrolled(forgot.userId)).toBe(true);

      await resetButton(lostPhone.email).click();
      const dialog = desk.getByRole('dialog');
      expect(await dialog.textContent()).toContain('lost or replaced phone');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(await enrolled(lostPhone.userId)).toBe(true);
      await resetButton(lostPhone.email).click();
      await desk.getByRole('dialog').getByRole('button', { name: 'Reset second factor' }).click();
      await expect.poll(() => desk.textContent('#team-message')).toContain('second factor was reset');
      // The link handed over before is no longer on the page, and focus is on their harmless first action.
      expect(await desk.isVisible('#person-link-result')).toBe(false);
      expect(await desk.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
        `Send ${lostPhone.email} a link to choose a new password`,
      );
      expect(await enrolled(lostPhone.userId)).toBe(false);
      expect(await desk.isVisible(`button[aria-label="Reset the second factor of ${lostPhone.email}"]`)).toBe(false);
      // Nor can the admin who took it away be handed their password link: the message says who can.
      await linkButton(lostPhone.email).click();
      await expect.poll(() => desk.textContent('#team-message')).toContain('Not done for');
      expect(await desk.textContent('#team-message')).toContain('another administrator');
      expect(await desk.getAttribute('#team-message', 'data-tone')).toBe('error');
      expect(await desk.isVisible('#person-link-result')).toBe(false);
    } finally {
      await signedIn.browser.close();
    }
  });
});
