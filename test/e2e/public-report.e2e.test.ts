import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intake, publicBody, uniquePhone } from '../helpers/public-reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { fitsWidth, hasChromium, launchChromium, screenshot, seriousViolations } from './browser.js';

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
