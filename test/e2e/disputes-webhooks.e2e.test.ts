import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, testClock } from '../helpers/people.js';
import { createCompany, key } from '../helpers/principals.js';
import { createReport } from '../helpers/reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';
import { fitsWidth, hasChromium, screenshot, seriousViolations, signedInPhonePage } from './browser.js';

const PORT = 4805;
const base = `http://127.0.0.1:${PORT}`;
const clock = testClock(Date.now());
const WHY =
  'This number belongs to our own customer, a market trader who was paid for goods; the sender later regretted the purchase.';
let t: TestApp;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let us: Awaited<ReturnType<typeof createCompany>>;
let them: Awaited<ReturnType<typeof createCompany>>;

describe.skipIf(!hasChromium)('disputes and webhooks in the desk, for a company admin, in Chromium at 360 px', () => {
  beforeAll(async () => {
    // The endpoint in this test is a local receiver, so private addresses are allowed here only.
    t = await buildTestApp({ config: { publicUrl: base, webhookAllowPrivate: true, webhookPollMs: 100 }, now: clock.now });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    receiver = await startReceiver();
    us = await createCompany(t, { businessName: 'Kuda Test Bank' });
    them = await createCompany(t, { businessName: 'Moniepoint Test MFB' });
    const admin = await createUser(t, clock, { companyId: us.companyId }, 'admin', { totp: true });
    ({ browser, page } = await signedInPhonePage(base, admin, clock.now));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('disputes another member’s report from a search result, then escalates it once upheld', async () => {
    const theirs = await createReport(t, them.apiKey, { identifiers: [{ label: 'phone', value: '0802 555 0101' }] });
    await page.selectOption('#search-label', 'phone');
    await page.fill('#search-value', '08025550101');
    await page.click('#search-button');
    await expect.poll(() => page.textContent('.verdict h2')).toBe('Reported 1 time');
    expect(await page.textContent('.verdict')).toMatch(/Risk.*Open disputes0/s);
    await page.click('#search-result button:has-text("Dispute this report")');
    await expect.poll(() => page.isVisible('#raise-form')).toBe(true);
    expect(await page.inputValue('#raise-report')).toBe(theirs.id);
    await page.fill('#raise-reason', 'Not fraud.');
    await page.click('#raise-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#raise-reason', 'aria-invalid')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await page.fill('#raise-reason', WHY);
    await page.click('#raise-form button[type=submit]');
    await expect.poll(() => page.textContent('#dispute-message')).toContain('Dispute sent');
    expect(await page.textContent('#disputes-list')).toContain('Raised by you');

    // The other member stands by its report (over its API); we then ask the operators to decide.
    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/external/disputes', headers: key(them.apiKey) });
    const disputeId = listed.json().data.data[0].id as string;
    const upheld = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/disputes/${disputeId}/uphold`,
      headers: key(them.apiKey),
      payload: { statement: 'Three customers sent money to this number for goods that never came; we hold their statements.' },
    });
    expect(upheld.statusCode).toBe(200);
    await page.selectOption('#disputes-status', 'upheld');
    await page.click('#disputes-filter button[type=submit]');
    await expect.poll(() => page.locator('#disputes-list li').count()).toBe(1);
    await page.click('#disputes-list button');
    await expect.poll(() => page.textContent('#dispute-statement')).toContain('Three customers');
    // The report is named as a person knows it, not by its internal id.
    expect(await page.textContent('#dispute-facts')).toMatch(/Money mule.*, listed \d/);
    expect(await page.textContent('#dispute-facts')).not.toContain(theirs.id);
    expect(await page.isVisible('#uphold-form')).toBe(false);
    await page.click('#escalate');
    await expect.poll(() => page.textContent('#dispute-message')).toBe('Sent to the operators.');
    expect(await page.textContent('#dispute-title')).toContain('with the operators');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  });

  it('answers a dispute on its own report by standing by it, and a search then shows the report as disputed', async () => {
    const ours = await createReport(t, us.apiKey, { identifiers: [{ label: 'phone', value: '0802 555 0202' }] });
    const raised = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/disputes',
      headers: key(them.apiKey),
      payload: { reportId: ours.id, reason: WHY },
    });
    expect(raised.statusCode).toBe(201);
    // A second dispute, on another report of ours: what is typed for one is not an answer to the other.
    const theft = await createReport(t, us.apiKey, {
      fraudType: 'theft',
      identifiers: [{ label: 'phone', value: '0802 555 0303' }],
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/disputes',
      headers: key(them.apiKey),
      payload: { reportId: theft.id, reason: WHY },
    });
    await page.click('button[data-view="disputes"]:visible');
    await page.selectOption('#disputes-side', 'received');
    await page.selectOption('#disputes-status', 'open');
    await page.click('#disputes-filter button[type=submit]');
    await expect.poll(() => page.textContent('#disputes-list')).toContain('Raised by Moniepoint Test MFB');
    await page.click('#disputes-list button:has-text("Theft")');
    await expect.poll(() => page.isVisible('#uphold-form')).toBe(true);
    await page.fill('#uphold-statement', 'Typed for the theft report.');
    await page.click('#disputes-list button:has-text("Money mule")');
    await expect.poll(() => page.inputValue('#uphold-statement')).toBe('');
    await page.fill('#uphold-statement', 'Short.');
    await page.click('#uphold-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#uphold-statement', 'aria-invalid')).toBe('true');
    await page.fill(
      '#uphold-statement',
      'Our customer lost ₦600,000 to this number; the call records and transfer receipts are on file.',
    );
    await page.click('#uphold-form button[type=submit]');
    await expect.poll(() => page.textContent('#dispute-message')).toContain('You stood by the report');
    expect(await page.textContent('#dispute-title')).toContain('upheld by the reporting member');
    await screenshot(page, 'disputes');

    await page.click('button[data-view="search"]');
    await page.selectOption('#search-label', 'phone');
    await page.fill('#search-value', '0802 555 0202');
    await page.click('#search-button');
    await expect.poll(() => page.textContent('#search-result')).toContain('Disputed: the reporting member stands by it');
    expect(await page.textContent('.verdict')).toContain('Open disputes1');
    // Our own report: nothing to dispute.
    expect(await page.locator('#search-result button:has-text("Dispute this report")').count()).toBe(0);
  });

  it('adds a webhook endpoint (secret shown once), reads its delivery log and sends a delivery again', async () => {
    await page.click('button[data-view="webhooks"]');
    await expect.poll(() => page.textContent('#webhooks-count')).toBe('0 endpoints');
    await page.fill('#webhook-url', 'not an address');
    await page.check('input[value="watchlist.match"]');
    await page.click('#webhook-form button[type=submit]');
    await expect.poll(() => page.locator('#webhook-form .field-error').count()).toBe(1);
    await page.fill('#webhook-url', receiver.url('/desk'));
    await page.click('#webhook-form button[type=submit]');
    await expect.poll(() => page.inputValue('#webhook-secret')).toMatch(/^whsec_/);
    receiver.secrets.push(await page.inputValue('#webhook-secret'));
    await expect.poll(() => page.textContent('#webhook-rows')).toContain('/desk');

    // A report by another member names a customer we watch: the event is signed with the secret shown.
    const watched = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/watchlist',
      headers: key(us.apiKey),
      payload: { items: [{ label: 'phone', value: '0802 555 0303', ref: 'cust-7' }] },
    });
    expect(watched.json().data.results[0].id).toBeDefined();
    await createReport(t, them.apiKey, { identifiers: [{ label: 'phone', value: '+234 802 555 0303' }] });
    await expect.poll(() => receiver.at('/desk', 'watchlist.match').length, { timeout: 10_000 }).toBe(1);
    expect(receiver.at('/desk')[0]?.verifiedBy).toEqual([receiver.secrets.length - 1]);

    // The receiver holds the event before its 204 reaches the service, which only then marks the
    // delivery done: the log is opened once the service has.
    const delivered = () =>
      sql<{ n: number }>`select count(*)::int as n from webhook_deliveries where status = 'delivered'`
        .execute(t.database.db)
        .then((r) => r.rows[0]?.n);
    await expect.poll(delivered).toBe(1);
    await page.click('#webhook-rows button:has-text("Deliveries")');
    await expect.poll(() => page.textContent('#delivery-rows')).toContain('Delivered (1 attempt)');
    expect(await page.textContent('#delivery-rows')).toContain('answered 204');
    expect(await page.textContent('#delivery-rows')).toContain('Watchlist match');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'webhooks');
    await page.click('#delivery-rows button:has-text("Send again")');
    await expect.poll(() => receiver.at('/desk', 'watchlist.match').length, { timeout: 10_000 }).toBe(2);

    await page.click('#webhook-rows button:has-text("Pause")');
    await expect.poll(() => page.textContent('#webhook-rows')).toContain('paused');
    // The list was redrawn: the keyboard carries on in the endpoint's card, not at the top of the page.
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('#webhook-rows li') !== null)).toBe(true);
    // On the button that took the pressed one's place, ready to press again.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Resume');
    await page.click('#webhook-rows button:has-text("Remove")');
    await page.getByRole('dialog').getByRole('button', { name: 'Remove endpoint' }).click();
    await expect.poll(() => page.textContent('#webhooks-count')).toBe('0 endpoints');
  });
});
