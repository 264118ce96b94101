import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, testClock } from '../helpers/people.js';
import { createCompany, createOperator, key } from '../helpers/principals.js';
import { createReport } from '../helpers/reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { fitsWidth, hasChromium, screenshot, seriousViolations, signedInPhonePage } from './browser.js';

const PORT = 4806;
const base = `http://127.0.0.1:${PORT}`;
const clock = testClock(Date.now());
let t: TestApp;
let browser: Browser;
let page: Page;

describe.skipIf(!hasChromium)('the operators’ admin pages in the desk, in Chromium at 360 px', () => {
  beforeAll(async () => {
    t = await buildTestApp({ config: { publicUrl: base }, now: clock.now });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    const operator = await createOperator(t);
    const admin = await createUser(t, clock, { operatorId: operator.operatorId }, 'admin', { totp: true });
    ({ browser, page } = await signedInPhonePage(base, admin, clock.now));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('adds a member company (its first key shown once), suspends it and reactivates it', async () => {
    expect(await page.isVisible('button[data-view="companies"]')).toBe(true);
    expect(await page.isVisible('button[data-view="team"]')).toBe(false);
    await page.click('button[data-view="companies"]');
    await expect.poll(() => page.textContent('#companies-count')).toMatch(/^0 companies/);
    await page.click('#company-form button[type=submit]');
    await expect.poll(() => page.locator('#company-form .field-error').count()).toBe(1);
    await page.fill('#company-name', 'Opay Test Digital Services');
    await page.click('#company-form button[type=submit]');
    await expect.poll(() => page.inputValue('#company-key')).toMatch(/^rf_/);
    const apiKey = await page.inputValue('#company-key');
    const whoami = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) });
    expect(whoami.json().data.company.businessName).toBe('Opay Test Digital Services');
    await expect.poll(() => page.textContent('#company-rows')).toContain('Opay Test Digital Services');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    // Suspending asks first (decision 0131).
    await page.click('#company-rows button:has-text("Suspend")');
    await page.getByRole('dialog').getByRole('button', { name: 'Suspend company' }).click();
    await expect.poll(() => page.textContent('#companies-message')).toContain('is suspended');
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) });
    expect(refused.statusCode).toBe(403);
    await page.click('#company-rows button:has-text("Reactivate")');
    await expect.poll(() => page.textContent('#companies-message')).toContain('is active again');
    const back = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) });
    expect(back.statusCode).toBe(200);
  });

  it('keeps the safelist: an entry is added by value, shown only by kind and reason, and removed', async () => {
    const company = await createCompany(t);
    await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: '0700 225 5000' }] });
    await page.click('button[data-view="safelist"]');
    await expect.poll(() => page.textContent('#safelist-count')).toBe('0 entries');
    await page.selectOption('#safe-label', 'phone');
    await page.fill('#safe-value', '0700 225 5000');
    await page.fill('#safe-reason', 'short');
    await page.click('#safelist-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#safe-reason', 'aria-invalid')).toBe('true');
    await page.fill('#safe-reason', "A bank's published customer-care line; scammers spoof it.");
    await page.click('#safelist-form button[type=submit]');
    await expect.poll(() => page.textContent('#safelist-form-message')).toContain('1 existing report names this identifier');
    // Which one, and where it stands.
    expect(await page.textContent('#safelist-review')).toMatch(/^Member report [0-9a-f]{8} · (published|draft|off the list)$/);
    await expect.poll(() => page.textContent('#safelist-rows')).toContain('customer-care line');
    expect(await page.textContent('#view-safelist')).not.toContain('7002255000');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.click('#safelist-rows button:has-text("Remove")');
    await page.getByRole('dialog').getByRole('button', { name: 'Remove entry' }).click();
    await expect.poll(() => page.textContent('#safelist-count')).toBe('0 entries');
  });

  it('decides an escalated dispute: the report comes off the list', async () => {
    const reporter = await createCompany(t);
    const disputer = await createCompany(t);
    const report = await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: '0810 444 0001' }] });
    const call = (apiKey: string, url: string, payload?: object) =>
      t.app.inject({ method: 'POST', url, headers: key(apiKey), ...(payload ? { payload } : {}) });
    const raised = await call(disputer.apiKey, '/api/v1/external/disputes', {
      reportId: report.id,
      reason: 'The account holder is our customer and the transfers were refunds for a cancelled order of phones.',
    });
    const id = raised.json().data.dispute.id as string;
    await call(reporter.apiKey, `/api/v1/external/disputes/${id}/uphold`, {
      statement: 'The refunds never reached the buyers; we hold the complaints of five of them with bank statements.',
    });
    expect((await call(disputer.apiKey, `/api/v1/external/disputes/${id}/escalate`)).statusCode).toBe(200);

    await page.click('button[data-view="disputes"]:visible');
    await page.selectOption('#disputes-status', 'escalated');
    await page.click('#disputes-filter button[type=submit]');
    await expect.poll(() => page.locator('#disputes-list li').count()).toBe(1);
    await page.click('#disputes-list button');
    await expect.poll(() => page.isVisible('#decide-form')).toBe(true);
    expect(await page.textContent('#dispute-statement')).toContain('five of them');
    // The report itself, read on request (audited), before deciding; no decision is chosen beforehand.
    await page.click('#dispute-read-report');
    await expect.poll(() => page.isVisible('#dispute-report')).toBe(true);
    expect(await page.textContent('#dispute-report-identifiers')).toMatch(/\d{6}/);
    expect(await page.inputValue('#decide-outcome')).toBe('');
    await page.fill('#decide-reason', 'The bank statements show the refunds arrived; the listing cannot stand.');
    await page.click('#decide-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#decide-outcome', 'aria-invalid')).toBe('true');
    await page.selectOption('#decide-outcome', 'remove');
    await page.fill('#decide-reason', 'x');
    await page.click('#decide-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#decide-reason', 'aria-invalid')).toBe('true');
    await page.fill('#decide-reason', 'The bank statements show the refunds arrived; the listing cannot stand.');
    await page.click('#decide-form button[type=submit]');
    // Removing the report asks first (a refused form above did not: nothing would have happened).
    await page.getByRole('dialog').getByRole('button', { name: 'Remove report' }).click();
    await expect.poll(() => page.textContent('#dispute-message')).toBe('Decided: the report is off the list.');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'dispute-decision');
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${report.id}`,
      headers: key(reporter.apiKey),
    });
    expect(read.json().data.report.listingStatus).toBe('exited');
  });

  it("People: a new member's first admin is invited, the link handed over, and a person suspended after asking", async () => {
    const member = await createCompany(t, { businessName: 'Moniepoint Test MFB' });
    await page.click('button[data-view="people"]');
    await expect.poll(() => page.locator('#people-member option').count()).toBeGreaterThan(2);
    await page.selectOption('#people-invite-member', member.companyId);
    expect(await page.locator('#people-invite-role option').allTextContents()).toEqual([
      'Admin — the team, keys and audit trail too',
      'Analyst — search, file and manage reports',
      'Viewer — search only',
    ]);
    await page.fill('#people-invite-email', 'first.admin@moniepoint.example');
    await page.click('#people-invite-form button[type=submit]');
    await expect.poll(() => page.inputValue('#people-invite-link')).toMatch(/\/invitations\/accept\?token=/);
    const users = await t.app.inject({
      url: `/api/v1/admin/users?companyId=${member.companyId}`,
      headers: { 'x-api-key': (await createOperator(t)).apiKey },
    });
    expect(users.json().data.users).toEqual([
      expect.objectContaining({ email: 'first.admin@moniepoint.example', role: 'admin', status: 'invited' }),
    ]);

    await page.selectOption('#people-member', member.companyId);
    await page.click('#people-filter button[type=submit]');
    await expect.poll(() => page.textContent('#people-rows')).toContain('Moniepoint Test MFB');
    // A card a person on a phone: the button is in the window before anything scrolls it there.
    const resend = page.getByRole('button', { name: 'Send first.admin@moniepoint.example a new invitation' });
    await expect
      .poll(async () => (await resend.boundingBox()) ?? { x: 360, width: 1 })
      .toSatisfy((box: { x: number; width: number }) => box.x >= 0 && box.x + box.width <= 360);
    await resend.click();
    await expect.poll(() => page.textContent('#people-message')).toContain('A new invitation for');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'people');

    const colleague = await createUser(t, clock, { companyId: member.companyId }, 'analyst');
    await page.click('#people-filter button[type=submit]');
    await page.getByRole('button', { name: `Suspend ${colleague.email}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Suspend person' }).click();
    await expect.poll(() => page.textContent('#people-message')).toContain('is suspended');
    const me = await t.app.inject({ url: '/api/v1/auth/me', headers: colleague.headers });
    expect(me.statusCode).toBe(401);

    // A wide screen: the table, wider than the reading column, shows every row's buttons whole
    // (in the 44rem column they were cut off at the right).
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await expect
        .poll(async () => {
          const boxes = await Promise.all((await page.locator('#people-rows button').all()).map((b) => b.boundingBox()));
          const box = await page.locator('#view-people .scroll-x').boundingBox();
          return (
            boxes.length > 0 &&
            box !== null &&
            boxes.every((b) => b !== null && b.x >= box.x && b.x + b.width <= box.x + box.width)
          );
        })
        .toBe(true);
      expect(await page.$eval('#view-people .scroll-x', (box) => box.scrollWidth <= box.clientWidth)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'people-wide');
    } finally {
      await page.setViewportSize({ width: 360, height: 780 });
    }
  });
});
