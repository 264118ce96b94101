import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, key } from '../helpers/principals.js';
import { ADMIN, filePublicReport, intake, publicBody, uniquePhone } from '../helpers/public-reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { fitsWidth, hasChromium, inSight, launchChromium, screenshot, seriousViolations, tabTo } from './browser.js';

const PORT = 4802;
const base = `http://127.0.0.1:${PORT}`;
let t: TestApp;
let browser: Browser;
let page: Page;

describe.skipIf(!hasChromium)('the public report form at /report, in Chromium at 360 px', () => {
  beforeAll(async () => {
    // Uploads: more than the 6 an hour a person gets, as every test here uploads from one address.
    t = await buildTestApp({ config: { publicUrl: base, publicReportsPerHour: 3, publicUploadsPerHour: 30 } });
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
    // Each kind of fraud, once chosen, is read whole in its closed list ("Tricked into paying or sharing d").
    const cut = await page.evaluate(() => {
      const select = document.getElementById('fraudType') as HTMLSelectElement;
      const style = getComputedStyle(select);
      const context = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      // The room for text: the box less its padding and the arrow (about 1.5rem).
      const room = select.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 24;
      return [...select.options].map((o) => o.text).filter((text) => context.measureText(text).width > room);
    });
    expect(cut).toEqual([]);
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
    // Corrected, a field loses its mark and its message at once, before anything is sent again; the
    // phone, not touched, keeps its own.
    expect(await page.getAttribute('#fraudReason', 'aria-invalid')).toBeNull();
    expect(await page.getAttribute('#fraudReason', 'aria-describedby')).toBe('reason-hint reason-count');
    expect(await page.getAttribute('#fraudType', 'aria-invalid')).toBeNull();
    expect(await page.textContent('#report-form')).not.toContain('Choose the kind of fraud from the list');
    expect(await page.getAttribute('#identifier-0-value', 'aria-invalid')).toBe('true');
    const answered = page.waitForResponse('**/api/v1/public/reports');
    await page.click('#submit');
    await answered;
    await expect.poll(() => page.textContent('#form-message')).toContain('correct the marked fields');
    expect(await page.getAttribute('#fraudReason', 'aria-invalid')).toBeNull();
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

  it('says what to check in plain words, not the service’s (NUBAN, ASCII, "at least 0"), and keeps the label in sight', async () => {
    await page.goto(`${base}/report`);
    await page.selectOption('#fraudType', 'romance_fraud');
    await page.fill('#eventDate', '2026-11-01');
    await page.locator('#institution').selectOption({ index: 3 });
    await page.fill('#fraudReason', 'He said he loved me, then asked for money to visit, and vanished once I had paid him.');
    // 0010246780 is a good Access Bank number; its last digit changed, the check digit fails.
    await page.selectOption('#identifier-0-label', 'account');
    await page.fill('#identifier-0-value', '0010246781');
    await page.selectOption('#identifier-0-bank', 'access-bank');
    await page.click('#add-identifier');
    await page.selectOption('#identifier-1-label', 'email');
    await page.fill('#identifier-1-value', 'scammer at gmail');
    await page.fill('#victimEmail', 'mama@');
    await page.fill('#amountLost', '-5000');
    await page.click('#submit');
    await expect.poll(() => page.getAttribute('#amountLost', 'aria-invalid')).toBe('true');
    const said = (await page.locator('#report-form .field-error').allTextContents()).join(' | ');
    expect(said).toContain('This account number does not match Access Bank. Check the 10 digits and the bank.');
    expect(said.split('Check the e-mail address: it looks incomplete or has spaces.').length).toBe(3);
    expect(said).toContain('The amount cannot be below zero.');
    expect(said).not.toMatch(/NUBAN|check digit|ASCII|at least 0/i);
    // The keyboard is on the first marked field, with its label and hint in sight above it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('identifier-0-value');
    const top = (selector: string) => page.evaluate((s) => document.querySelector(s)?.getBoundingClientRect().top, selector);
    expect(await top('label[for="identifier-0-value"]')).toBeGreaterThanOrEqual(0);
    expect(await top('#identifier-0-hint')).toBeGreaterThanOrEqual(0);
    // However the browser brings a field up to the screen's top edge (Chromium's focus may centre
    // it, or align it, as the scroll below does), its label and hint come with it: the story's too.
    for (const field of ['identifier-0-value', 'fraudReason', 'amountLost']) {
      await page.evaluate((id) => {
        window.scrollTo(0, document.body.scrollHeight);
        document.getElementById(id)?.scrollIntoView();
      }, field);
      expect(await top(`label[for="${field}"]`), field).toBeGreaterThanOrEqual(0);
    }
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    // The amount corrected: its message goes at once; the others stay until their fields are edited.
    await page.fill('#amountLost', '5000');
    expect(await page.getAttribute('#amountLost', 'aria-invalid')).toBeNull();
    expect(await page.textContent('#report-form')).not.toContain('below zero');
    expect(await page.locator('#report-form .field-error').count()).toBe(3);
    expect(await page.getAttribute('#victimEmail', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#form-message')).toContain('Please correct the marked fields');
    // Every marked field corrected: the line asking for corrections goes too, and no field keeps
    // an empty description.
    await page.fill('#identifier-0-value', '0010246780');
    await page.fill('#identifier-1-value', 'scammer@gmail.com');
    await page.fill('#victimEmail', 'mama@example.com');
    expect(await page.locator('#report-form [aria-invalid]').count()).toBe(0);
    expect(await page.textContent('#form-message')).toBe('');
    expect(await page.locator('#report-form [aria-describedby=""]').count()).toBe(0);
  });

  it('refuses a file that is not evidence, and says which files can be used, in sight', async () => {
    await page.goto(`${base}/report`);
    await page.setInputFiles('#evidence', {
      name: 'photo.png',
      mimeType: 'image/png',
      buffer: Buffer.from('MZ not really a picture'),
    });
    await expect.poll(() => page.textContent('#evidence-list')).toContain('not added');
    expect(await page.textContent('#evidence-list')).toContain('PNG, JPEG or WebP) or a PDF');
    // Said once, and in sight: the list is under the picker, below the screen's edge as the page opens.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.setInputFiles('#evidence', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('my notes') });
    const line = page.locator('#evidence-list li', { hasText: 'notes.txt' });
    await expect
      .poll(() => line.textContent())
      .toContain('notes.txt: not added — send a photo or screenshot (PNG, JPEG or WebP) or a PDF.');
    expect(await line.textContent()).not.toMatch(/recognised|PDF, PNG, JPEG or WebP/);
    const inSight = await line.evaluate((li) => {
      const box = li.getBoundingClientRect();
      // Within a pixel: a line's edge may fall on a fraction of one.
      return box.top >= 0 && box.bottom <= window.innerHeight + 1;
    });
    expect(inSight).toBe(true);
    expect(await page.getAttribute('#evidence-list', 'aria-live')).toBe('polite');
  });

  it('keeps a long file name on the screen, and says when a file could not be sent for want of a connection', async () => {
    await page.goto(`${base}/report`);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const name = 'WhatsApp_Image_2026-11-20_at_14.32.55_transfer_receipt_from_my_bank_app.png';
    await page.setInputFiles('#evidence', { name, mimeType: 'image/png', buffer: png });
    await expect.poll(() => page.textContent('#evidence-list')).toContain('added ✓');
    expect(await fitsWidth(page)).toBe(true);

    await page.context().setOffline(true);
    try {
      await page.setInputFiles('#evidence', { name: 'receipt2.png', mimeType: 'image/png', buffer: png });
      await expect
        .poll(() => page.textContent('#evidence-list'))
        .toContain(
          "receipt2.png: not added — we couldn't reach Redflag. Check your internet connection, then choose the file again.",
        );
    } finally {
      await page.context().setOffline(false);
    }
  });

  it('says when the connection is lost while sending, keeps what was typed, and the button works again', async () => {
    const uncaught: string[] = [];
    page.on('pageerror', (error) => uncaught.push(error.message));
    await page.goto(`${base}/report`);
    await page.selectOption('#fraudType', 'romance_fraud');
    await page.fill('#eventDate', '2026-11-01');
    await page.locator('#institution').selectOption({ index: 3 });
    await page.fill('#fraudReason', 'He said he loved me, then asked for money to visit, and vanished once I had paid him.');
    await page.fill('#identifier-0-value', '0803 123 4567');
    await page.context().setOffline(true);
    try {
      await page.click('#submit');
      await expect
        .poll(() => page.textContent('#form-message'))
        .toBe("We couldn't reach Redflag, so nothing was sent. Check your internet connection, then press Send again.");
    } finally {
      await page.context().setOffline(false);
    }
    // Read out once, by its live region, and in sight; the keyboard stays on Send, to press it again.
    expect(await page.getAttribute('#form-message', 'role')).toBe('alert');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('submit');
    expect(await inSight(page, '#form-message')).toBe(true);
    expect(await page.getAttribute('#report-form', 'aria-busy')).toBeNull();
    expect(await page.inputValue('#identifier-0-value')).toBe('0803 123 4567');
    expect(uncaught).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    // The button works again (a refused try, so the hourly limit below is not touched).
    await page.fill('#fraudReason', 'Too short.');
    await page.click('#submit');
    await expect.poll(() => page.getAttribute('#fraudReason', 'aria-invalid')).toBe('true');
    page.removeAllListeners('pageerror');
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
    // The same short reference in a link (typed out by hand): the same help, not "we can't find".
    await page.goto(`${base}/report#status/${`${id.slice(0, 4)}-${id.slice(4, 8)}`.toUpperCase()}`);
    await expect
      .poll(() => page.textContent('#status-error'))
      .toBe('That is the short reference. We need the full report ID: 36 letters, digits and dashes.');

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

    // With an address to write to (none is set here), one way to our team: no answer is promised
    // to a person who filed a report, so none is said to have gone missing.
    const contact = '**/api/v1/meta-data/contact';
    await page.route(contact, (route) =>
      route.fulfill({ json: { success: true, message: 'Contact fetched', data: { contact: { email: 'help@example.org' } } } }),
    );
    await page.reload();
    const reference = `${id.slice(0, 4)}-${id.slice(4, 8)}`.toUpperCase();
    await expect
      .poll(() => page.textContent('#status-contact'))
      .toBe(`Something here looks wrong? Write to our team at help@example.org, and quote the reference ${reference}.`);
    await page.unroute(contact);
    // The page keeps the address it was given: the next test starts from a page that asks again.
    await page.goto('about:blank');
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
