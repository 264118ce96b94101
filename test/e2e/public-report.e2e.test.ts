import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, key } from '../helpers/principals.js';
import { ADMIN, filePublicReport, intake, publicBody, uniquePhone } from '../helpers/public-reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { fitsWidth, hasChromium, launchChromium, screenshot, seriousViolations, tabTo } from './browser.js';

const PORT = 4802;
const base = `http://127.0.0.1:${PORT}`;
let t: TestApp;
let browser: Browser;
let page: Page;

describe.skipIf(!hasChromium)('the public report form at /report, in Chromium at 360 px', () => {
  beforeAll(async () => {
    t = await buildTestApp({ config: { publicUrl: base, publicReportsPerHour: 3 } });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('has no serious accessibility violations and fits a phone screen', async () => {
    await page.goto(`${base}/report`);
    await expect.poll(() => page.locator('#institution option').count()).toBeGreaterThan(5);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  });

  it('shows the service’s own messages beside the fields a person gets wrong', async () => {
    await page.goto(`${base}/report`);
    await page.fill('#fraudReason', 'He took my money.');
    await expect.poll(() => page.textContent('#reason-count')).toContain('more needed');
    await page.selectOption('#identifier-0-label', 'phone');
    await page.fill('#identifier-0-value', '12');
    await page.fill('#eventDate', '2026-11-01');
    await page.locator('#institution').selectOption({ index: 3 });
    await page.click('#submit');
    await expect.poll(() => page.getAttribute('#fraudReason', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#form-message')).toContain('correct the marked fields');
    // No kind of fraud is chosen for the person: asked for in plain words.
    expect(await page.getAttribute('#fraudType', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#report-form')).toContain('Choose the kind of fraud from the list');
    await page.selectOption('#fraudType', 'romance_fraud');
    await page.fill('#fraudReason', 'He said he loved me, then asked for money to visit, and vanished once I had paid him.');
    await page.click('#submit');
    // The phone was already marked by the first answer: the second is known by the story's mark going.
    await expect.poll(() => page.getAttribute('#fraudReason', 'aria-invalid')).toBeNull();
    expect(await page.getAttribute('#identifier-0-value', 'aria-invalid')).toBe('true');
    expect(await page.textContent('.field-error')).toMatch(/phone/i);
    expect(await seriousViolations(page)).toEqual([]);
    // No detail of the suspect at all: said beside the first detail's field, in words.
    await page.fill('#identifier-0-value', '');
    await page.click('#submit');
    await expect.poll(() => page.textContent('#report-form .field-error')).toContain('Give at least one detail of the suspect');
    expect(await page.getAttribute('#identifier-0-value', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#form-message')).not.toContain('identifiers');
  });

  it('marks the row a person got wrong, when a row above it was left empty', async () => {
    await page.goto(`${base}/report`);
    await page.click('#add-identifier');
    await page.selectOption('#identifier-1-label', 'phone');
    await page.fill('#identifier-1-value', '12');
    await page.selectOption('#fraudType', 'romance_fraud');
    await page.fill('#fraudReason', 'He said he loved me, then asked for money to visit, and vanished once I had paid him.');
    await page.fill('#eventDate', '2026-11-01');
    await page.locator('#institution').selectOption({ index: 3 });
    await page.click('#submit');
    // The empty first row is not sent, so the service's identifiers/0 is the second row on screen.
    await expect.poll(() => page.getAttribute('#identifier-1-value', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#identifier-0-value', 'aria-invalid')).toBeNull();
  });

  it('names an account without its bank and every other mistake in one answer, in words', async () => {
    await page.goto(`${base}/report`);
    await page.selectOption('#identifier-0-label', 'account');
    await page.fill('#identifier-0-value', '0010246780');
    await page.click('#add-identifier');
    await page.selectOption('#identifier-1-label', 'phone');
    await page.fill('#identifier-1-value', '12');
    await page.fill('#fraudReason', 'Too short.');
    await page.click('#submit');
    await expect.poll(() => page.getAttribute('#identifier-0-bank', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#identifier-1-value', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#fraudReason', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#report-form')).toContain('Choose the bank of this account');
    expect(await page.textContent('#report-form')).not.toContain('bank slug');
    // Left empty, the institution and the date are asked for, not their format explained.
    expect(await page.textContent('#report-form')).toContain('Choose the bank or institution from the list');
    expect(await page.textContent('#report-form')).toContain('Give the date it happened');
    // The keyboard starts at the first marked field down the page.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
  });

  it('refuses a file that is not evidence, and says which files can be used', async () => {
    await page.goto(`${base}/report`);
    await page.setInputFiles('#evidence', {
      name: 'photo.png',
      mimeType: 'image/png',
      buffer: Buffer.from('MZ not really a picture'),
    });
    await expect.poll(() => page.textContent('#evidence-list')).toContain('not added');
    expect(await page.textContent('#evidence-list')).toContain('PDF, PNG, JPEG or WebP');
  });

  it('files a report with evidence and shows a reference', async () => {
    await page.goto(`${base}/report`);
    await page.check('input[value=witness]');
    await page.selectOption('#fraudType', 'romance_fraud');
    await page.fill('#eventDate', '2026-11-01');
    await page.locator('#institution').selectOption({ index: 3 });
    await page.fill(
      '#fraudReason',
      'A man I met on Facebook said he was an engineer abroad and asked my aunt for money for customs fees, then blocked her.',
    );
    await page.fill('#identifier-0-value', '0803 123 4567');
    await page.fill('#victimName', 'Ngozi');
    await page.fill('#reporterEmail', 'helper@example.com');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    await page.setInputFiles('#evidence', { name: 'chat.png', mimeType: 'image/png', buffer: png });
    await expect.poll(() => page.textContent('#evidence-list')).toContain('added ✓');
    await screenshot(page, 'public-form');
    await page.click('#submit');
    await expect.poll(() => page.isVisible('#done')).toBe(true);
    // A reference a person can write down or read out: eight letters and digits, not a 36-character id.
    expect(await page.textContent('#reference')).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
    expect(await seriousViolations(page)).toEqual([]);
    const queue = await t.database.db.selectFrom('public_reports').select(['id']).where('status', '=', 'draft').execute();
    expect(queue.length).toBeGreaterThanOrEqual(1);

    // The status page (decision 0129): the link carries the full id in the fragment only.
    const reference = (await page.textContent('#reference')) as string;
    const href = (await page.getAttribute('#status-link', 'href')) as string;
    expect(href).toMatch(/^\/report#status\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const id = href.slice('/report#status/'.length);
    expect(id.slice(0, 8).toUpperCase()).toBe(reference.replace('-', ''));
    // Followed with the keyboard alone.
    await tabTo(page, '#status-link');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status-heading')).toContain('Received');
    expect(page.url()).toBe(`${base}${href}`);
    expect(await page.isVisible('#report-form')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('status-title');
    expect(await page.textContent('#status-result')).toContain(reference);
    expect(await page.textContent('#status-result')).toContain('checks every report');
    expect(await page.inputValue('#status-address')).toBe(`${base}${href}`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'public-report-status');
    // Back returns to the confirmation the person came from; Forward to the status again.
    await page.goBack();
    await expect.poll(() => page.isVisible('#done')).toBe(true);
    expect(await page.isVisible('#status-page')).toBe(false);
    await page.goForward();
    await expect.poll(() => page.isVisible('#status-result')).toBe(true);

    // An operator publishes it; a reload says so.
    const operator = await createOperator(t);
    const published = await t.app.inject({ method: 'POST', url: `${ADMIN}/${id}/publish`, headers: key(operator.apiKey) });
    expect(published.statusCode).toBe(200);
    await page.reload();
    await expect.poll(() => page.textContent('#status-heading')).toContain('Published');
    expect(await page.textContent('#status-result')).toContain('Status changed');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  });

  it('checks a pasted report id, and says plainly when it finds none', async () => {
    const id = await filePublicReport(t, uniquePhone());
    await page.goto(`${base}/report#status/${randomUUID()}`);
    await expect
      .poll(() => page.textContent('#status-error'))
      .toBe("We can't find a report with that ID. Check you copied all of it.");
    expect(await page.isVisible('#status-result')).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    // The short reference is not enough: said so, and nothing is asked of the service.
    await tabTo(page, '#status-id');
    await page.keyboard.type(`${id.slice(0, 4)}-${id.slice(4, 8)}`.toUpperCase());
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status-form-message')).toContain('short reference');
    expect(await page.getAttribute('#status-id', 'aria-invalid')).toBe('true');

    // The whole id, pasted in capitals with spaces around it, opens its status.
    await page.fill('#status-id', `  ${id.toUpperCase()} `);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status-heading')).toContain('Received');
    expect(page.url()).toBe(`${base}/report#status/${id}`);
    expect(await page.isVisible('#status-problem')).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);

    // A copy button puts the link on the clipboard (or, without one, selects it to copy by hand).
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.click('#copy-address');
    await expect.poll(() => page.textContent('#copy-message')).toMatch(/Link copied|selected/);
    if ((await page.textContent('#copy-message'))?.includes('Link copied')) {
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${base}/report#status/${id}`);
    }
  });

  it('says when the network fails, and tries again', async () => {
    const id = await filePublicReport(t, uniquePhone());
    const url = `**/api/v1/public/reports/${id}/status`;
    await page.route(url, (route) => route.abort('internetdisconnected'));
    await page.goto(`${base}/report#status/${id}`);
    await expect.poll(() => page.textContent('#status-error')).toContain("We couldn't reach Redflag");
    expect(await page.isVisible('#status-retry')).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.unroute(url);
    await page.click('#status-retry');
    await expect.poll(() => page.textContent('#status-heading')).toContain('Received');
    expect(await page.isVisible('#status-problem')).toBe(false);
  });

  it('explains the per-address limit when it is reached', async () => {
    // The limit is 3 an hour here. Only the report filed above counts (the refused tries do not),
    // so two more from this address fill it and the next is the fourth.
    for (let i = 0; i < 2; i++) expect((await intake(t, publicBody(uniquePhone()), '127.0.0.1')).statusCode).toBe(201);
    await page.goto(`${base}/report`);
    await page.click('#submit');
    await expect.poll(() => page.textContent('#form-message')).not.toBe('Sending…');
    expect(await page.textContent('#form-message')).toContain('try again in about');
  });
});
