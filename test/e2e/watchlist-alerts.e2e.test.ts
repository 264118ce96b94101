import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, testClock } from '../helpers/people.js';
import { createCompany } from '../helpers/principals.js';
import { createReport } from '../helpers/reports.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { ageWatchlistEvents, watchingMember } from '../helpers/watchlist.js';
import { fitsWidth, hasChromium, screenshot, seriousViolations, signedInPhonePage, tabTo } from './browser.js';

const PORT = 4810;
const SMTP_PORT = 4428;
const base = `http://127.0.0.1:${PORT}`;
const clock = testClock(Date.now());
let t: TestApp;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let browser: Browser;
let page: Page;

describe.skipIf(!hasChromium)('e-mail alerts about watched customers, from the desk at 360 px', () => {
  beforeAll(async () => {
    sink = await startSmtpSink(SMTP_PORT);
    t = await buildTestApp({
      now: clock.now,
      config: { publicUrl: base, jobTickSeconds: 0, smtpUrl: sink.url, mailFrom: 'Redflag <desk@redflag.example>' },
    });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await sink?.close();
  });

  it('an analyst asks on their account page, is e-mailed when a report names a watched customer, and the link opens the Watchlist', async () => {
    const { bank, phone } = await watchingMember(t, { businessName: 'Kano Savings Bank', ref: 'Customer 88' });
    const reporter = await createCompany(t, { businessName: 'Lagos Quick Loans' });
    const analyst = await createUser(t, clock, { companyId: bank.companyId }, 'analyst', { totp: true });
    ({ browser, page } = await signedInPhonePage(base, analyst, clock.now));

    await page.getByRole('button', { name: 'Your account' }).click();
    await expect.poll(() => page.isVisible('#alerts-box')).toBe(true);
    expect(await page.isChecked('#alerts-on')).toBe(false);
    // With the keyboard alone: Tab to the box, Space ticks it, Enter on Save sends.
    await tabTo(page, '#alerts-on');
    await page.keyboard.press('Space');
    await tabTo(page, '#alerts-form button[type=submit]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#alerts-message')).toContain('Saved: you will be e-mailed');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'account-alerts', { of: '#alerts-box' });
    // Kept: the page opened again shows it on.
    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByRole('button', { name: 'Your account' }).click();
    await expect.poll(() => page.isChecked('#alerts-on')).toBe(true);

    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    // The job tells events a minute old: this one, and the time the analyst asked, are moved back together.
    await ageWatchlistEvents(t, bank.companyId);
    expect((await t.app.jobs.runNow('watchlist.alerts')).items).toBe(1);
    const mail = sink.received.find((m) => m.to.includes(analyst.email) && m.body.includes('Subject: Redflag: '));
    expect(mail?.body).toContain('1 report newly named customers Kano Savings Bank watches');
    for (const secret of [phone.slice(1), 'Customer 88', 'Lagos Quick Loans']) expect(mail?.body).not.toContain(secret);
    const link = /http:\/\/\S+#watchlist/.exec(mail?.body ?? '')?.[0];
    expect(link).toBe(`${base}/#watchlist`);

    // The link opens the Watchlist page, where the match says who reported whom.
    await page.goto(link as string);
    await expect.poll(() => page.isVisible('#view-watchlist')).toBe(true);
    await expect.poll(() => page.textContent('#matches-list')).toContain('Lagos Quick Loans');
    expect(await page.textContent('#matches-list')).toContain('Customer 88');

    // Turned off again, nothing more comes.
    await page.getByRole('button', { name: 'Your account' }).click();
    await expect.poll(() => page.isChecked('#alerts-on')).toBe(true);
    await page.uncheck('#alerts-on');
    await page.click('#alerts-form button[type=submit]');
    await expect.poll(() => page.textContent('#alerts-message')).toContain('no more e-mails');
    const alerts = await t.app.inject({ url: '/api/v1/auth/me/watchlist-alerts', headers: analyst.headers });
    expect(alerts.json().data.watchlistAlerts.on).toBe(false);

    // On again, once a day: the choice is said, and kept.
    await page.check('#alerts-on');
    await page.getByRole('radio', { name: 'Once a day, at 8 in the morning (Lagos time)' }).check();
    await page.click('#alerts-form button[type=submit]');
    await expect.poll(() => page.textContent('#alerts-message')).toContain('once a day, at 8 in the morning');
    expect(await seriousViolations(page)).toEqual([]);
    const daily = await t.app.inject({ url: '/api/v1/auth/me/watchlist-alerts', headers: analyst.headers });
    expect(daily.json().data.watchlistAlerts).toEqual({ on: true, available: true, every: 'day' });
    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByRole('button', { name: 'Your account' }).click();
    await expect.poll(() => page.isChecked('input[name="alerts-every"][value="day"]')).toBe(true);
  });
});
