import { randomBytes } from 'node:crypto';
import type { Browser, Page, Route } from 'playwright-core';
import { encode } from 'uqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/modules/users/totp.js';
import { accept, enrolTotp, invite, PASSWORD, sessionCookie, testClock } from '../helpers/people.js';
import { createCompany, createOperator, key } from '../helpers/principals.js';
import { filePublicReport } from '../helpers/public-reports.js';
import { createReport } from '../helpers/reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { engine } from '../helpers/test-database.js';
import { pathOf, uploadedUrl } from '../helpers/uploads.js';
import { fitsWidth, hasChromium, launchChromium, screenshot, seriousViolations, tabTo } from './browser.js';

const PORT = 4803;
const base = `http://127.0.0.1:${PORT}`;
// The app's clock starts at the real time, so the codes an authenticator app would show are the ones it accepts.
const clock = testClock(Date.now());
let t: TestApp;
let browser: Browser;
let page: Page;
let company: Awaited<ReturnType<typeof createCompany>>;
let person: Awaited<ReturnType<typeof invite>>;
let secret = '';

/** Which modules a path of `M x y h n v1 h-n z` runs (web/qr.ts) paints dark, on a `size` grid. */
function modulesOf(d: string, size: number): boolean[][] {
  const grid = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  for (const [, x, y, n] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    for (let i = Number(x); i < Number(x) + Number(n); i++) (grid[Number(y)] as boolean[])[i] = true;
  }
  return grid;
}

/**
 * The enrolment page's QR code, read back from the SVG the browser drew: a named image, dark on
 * white, with a four-module quiet zone, 240 px at most and never wider than the page; its grid is
 * a QR version's (21 + 4k modules a side) with the three finder squares in their corners, module
 * for module the matrix uqr makes in Node for the same otpauth:// URL.
 */
async function expectQrOf(url: string | null): Promise<void> {
  expect(url).toMatch(/^otpauth:\/\/totp\//);
  const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
  expect(await qr.isVisible()).toBe(true);
  const drawn = await qr.evaluate((svg) => ({
    viewBox: svg.getAttribute('viewBox'),
    paper: svg.querySelector('rect')?.getAttribute('fill'),
    ink: svg.querySelector('path')?.getAttribute('fill'),
    d: svg.querySelector('path')?.getAttribute('d') ?? '',
    // Above the key, which is the fallback for whoever cannot scan.
    aboveSecret: Boolean(
      svg.compareDocumentPosition(document.getElementById('totp-secret') as Node) & Node.DOCUMENT_POSITION_FOLLOWING,
    ),
  }));
  expect(drawn).toMatchObject({ paper: '#fff', ink: '#000', aboveSecret: true });
  const [minX, minY, width, height] = (drawn.viewBox ?? '').split(' ').map(Number) as number[];
  expect([minX, minY]).toEqual([-4, -4]);
  expect(width).toBe(height);
  const size = (width as number) - 8;
  expect(size >= 21 && (size - 21) % 4 === 0).toBe(true);
  const grid = modulesOf(drawn.d, size);
  const finder = (x0: number, y0: number) =>
    Array.from({ length: 7 }, (_, y) =>
      Array.from({ length: 7 }, (_, x) => grid[y0 + y]?.[x0 + x] === (Math.max(Math.abs(x - 3), Math.abs(y - 3)) !== 2)),
    ).every((row) => row.every(Boolean));
  expect([finder(0, 0), finder(size - 7, 0), finder(0, size - 7)]).toEqual([true, true, true]);
  expect(grid).toEqual(encode(url as string, { ecc: 'M', border: 0 }).data);
  // 240 px at most, square, and inside the window at 360 px as at 1280 px.
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 360, height: 780 },
  ]) {
    await page.setViewportSize(viewport);
    const box = await qr.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(200);
    expect(box?.width).toBeLessThanOrEqual(240);
    expect(box?.height).toBeCloseTo(box?.width ?? 0, 0);
    expect(await fitsWidth(page)).toBe(true);
  }
}

describe.skipIf(!hasChromium)('the desk at /, in Chromium at 360 px', () => {
  beforeAll(async () => {
    t = await buildTestApp({ config: { publicUrl: base }, now: clock.now });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    company = await createCompany(t, { businessName: 'Acme Microfinance Bank' });
    // Accepted in the browser, from the link the invitation gives (the first test).
    person = await invite(t, { companyId: company.companyId }, 'admin');
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('accepts an invitation from its link, then signs in, refusing a wrong password, and enrols the second factor', async () => {
    await page.goto(person.inviteUrl);
    await expect.poll(() => page.isVisible('#view-accept')).toBe(true);
    // The token leaves the address bar (and the history) at once.
    expect(page.url()).toBe(`${base}/`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.fill('#accept-password', PASSWORD);
    await page.click('#accept-form button[type=submit]');
    await expect.poll(() => page.locator('#accept-form .field-error').count()).toBe(1);
    await page.fill('#accept-name', 'Ada Obi');
    await page.click('#accept-form button[type=submit]');
    await expect.poll(() => page.isVisible('#view-sign-in')).toBe(true);
    expect(await page.textContent('#notice')).toContain('You have joined');
    expect(await page.inputValue('#email')).toBe(person.email);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.fill('#email', person.email);
    await page.fill('#password', 'not the right password');
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.textContent('#sign-in-message')).not.toBe('');
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.textContent('#totp-secret')).not.toBe('');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    secret = (await page.textContent('#totp-secret')) as string;
    await expectQrOf(await page.getAttribute('#totp-link', 'href'));
    await screenshot(page, 'second-factor-qr');
    await page.fill('#enrol-code', '000000');
    await page.click('#enrol-form button[type=submit]');
    await expect.poll(() => page.textContent('#enrol-message')).not.toBe('');
    await page.fill('#enrol-code', totpCode(secret, clock.now()));
    await page.click('#enrol-form button[type=submit]');
    await expect.poll(() => page.locator('#recovery-codes li').count()).toBe(10);
    await page.click('#enrol-done');
    expect(await page.isVisible('#view-search')).toBe(true);
  });

  it('searches by POST and shows the answer at a glance, then the reports', async () => {
    const filed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: key(company.apiKey),
      payload: {
        fraudType: 'romance_fraud',
        fraudReason: 'Posed as a US army doctor on Instagram and collected ₦2.4m in "leave fees" from three customers.',
        identifiers: [{ label: 'phone', value: '+2348031234567' }],
      },
    });
    expect(filed.statusCode).toBe(201);
    await page.selectOption('#search-label', 'phone');
    await page.fill('#search-value', '0803 123 4567');
    await page.click('#search-button');
    await expect.poll(() => page.textContent('.verdict h2')).toBe('Reported 1 time');
    expect(await page.textContent('#search-result')).toContain('Acme Microfinance Bank');
    // The value searched for is never in the address: only the page's name is.
    expect(page.url()).toBe(`${base}/#search`);
    const ms = Number(await page.getAttribute('#search-result', 'data-render-ms'));
    console.log(`e2e: search click → result on screen ${ms} ms (one report, ${engine} engine, shared 2-core machine)`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'search-result');
    // A refused search clears the answer before it, and the next good one clears the error.
    await page.fill('#search-value', '12');
    await page.click('#search-button');
    await expect.poll(() => page.locator('#search-form [aria-invalid=true]').count()).toBe(1);
    expect(await page.locator('#search-result > *').count()).toBe(0);
    // Choosing another kind takes away the error about the last one.
    await page.selectOption('#search-label', 'email');
    expect(await page.locator('#search-form [aria-invalid=true]').count()).toBe(0);
    expect(await page.locator('#search-form .field-error').count()).toBe(0);
    await page.selectOption('#search-label', 'phone');
    await page.fill('#search-value', '0803 123 4567');
    await page.click('#search-button');
    await expect.poll(() => page.textContent('.verdict h2')).toBe('Reported 1 time');
    expect(await page.locator('#search-form [aria-invalid=true]').count()).toBe(0);
    // An account number may be narrowed to its bank: the bank is asked for only for accounts.
    expect(await page.isVisible('#search-bank')).toBe(false);
    await page.selectOption('#search-label', 'account');
    await expect.poll(() => page.locator('#search-bank option').count()).toBeGreaterThan(5);
    await page.locator('#search-bank').selectOption({ index: 1 });
    const bank = await page.inputValue('#search-bank');
    await page.fill('#search-value', '0010246780');
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/v1/external/reports/search'));
    await page.click('#search-button');
    expect((await sent).postDataJSON()).toEqual({ identifier: 'account', value: `0010246780_${bank}` });
    await page.selectOption('#search-label', 'phone');
    expect(await page.isVisible('#search-bank')).toBe(false);
  });

  it('shows every entry of the phone menu whole, with its focus ring, when Tab reaches it', async () => {
    const entries = page.locator('nav .views button:visible');
    const count = await entries.count();
    expect(count).toBeGreaterThan(5);
    await entries.first().focus();
    for (let i = 0; i < count; i++) {
      if (i > 0) await page.keyboard.press('Tab');
      // The focused entry and its 3 px ring (2 px out) inside the strip's visible box.
      const clipped = () =>
        page.evaluate(() => {
          const strip = document.querySelector('nav .views') as HTMLElement;
          const entry = document.activeElement as HTMLElement;
          if (!strip.contains(entry)) return `focus left the menu at ${entry.textContent}`;
          const box = strip.getBoundingClientRect();
          const own = entry.getBoundingClientRect();
          const ring = 5;
          return own.left - ring < box.left - 0.5 || own.right + ring > box.right + 0.5
            ? `${entry.textContent}: ${Math.round(own.left)}–${Math.round(own.right)} in ${Math.round(box.left)}–${Math.round(box.right)}`
            : '';
        });
      await expect.poll(clipped, { timeout: 2000 }).toBe('');
    }
    await page.locator('nav .views button[data-view="search"]').click();
  });

  it('files a report with the keyboard alone, with the server’s messages beside the fields', async () => {
    await tabTo(page, '[data-view=file]');
    await page.keyboard.press('Enter');
    await tabTo(page, '#identifier-0-value');
    await page.keyboard.type('12');
    await tabTo(page, '#file-reason');
    await page.keyboard.type('Too short.');
    expect(await page.textContent('#file-reason-count')).toContain('more needed');
    await tabTo(page, '#file-form button[value=published]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#file-form [aria-invalid=true]').count()).toBeGreaterThanOrEqual(1);
    expect(await page.textContent('#file-form')).toMatch(/characters|phone/i);
    // No kind of fraud is chosen for the person.
    expect(await page.textContent('#file-form')).toContain('Choose the kind of fraud from the list');
    await screenshot(page, 'file-report');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    await page.focus('#identifier-0-value');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('0803 765 4321');
    await tabTo(page, '#file-reason');
    await page.keyboard.type(' The caller claimed to be from our fraud desk and talked the customer into sharing a token code.');
    await tabTo(page, '#file-fraudType');
    await page.keyboard.press('ArrowDown');
    expect(await page.inputValue('#file-fraudType')).not.toBe('');
    await tabTo(page, '#file-form button[value=published]');
    // Enter pressed twice before the answer: one report, not two.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#file-message')).toContain('Published');
    // The form is empty again, so a second press cannot file the same report twice.
    expect(await page.inputValue('#file-reason')).toBe('');
    expect(await page.inputValue('#identifier-0-value')).toBe('');
    expect(await page.inputValue('#file-fraudType')).toBe('');
    expect(await page.locator('#file-form [aria-invalid=true]').count()).toBe(0);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/external/reports/submissions', headers: key(company.apiKey) });
    expect(list.json().data.meta.total).toBe(2);
    // "Add identifier" puts the keyboard on the new row, where the person carries on.
    await tabTo(page, '#file-add-identifier');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('identifier-1-label');
    // A row added by mistake goes again; the only row left has no "Remove" to press.
    expect(await page.locator('#file-identifiers .remove-row:visible').count()).toBe(2);
    await page.fill('#identifier-1-value', '0803 000 0009');
    await tabTo(page, '#file-identifiers .identifier-row:nth-child(2) .remove-row');
    await page.keyboard.press('Enter');
    expect(await page.locator('#file-identifiers .identifier-row').count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('identifier-0-label');
    expect(await page.locator('#file-identifiers .remove-row:visible').count()).toBe(0);
    await page.click('#file-add-identifier');
    await page.click('#file-add-identifier');
    // Removing the middle row keeps every id unique when the next is added.
    await page.click('#file-identifiers .identifier-row:nth-child(2) .remove-row');
    await page.click('#file-add-identifier');
    const ids = await page.$$eval('#file-identifiers select.id-label', (all) => all.map((e) => e.id));
    expect(new Set(ids).size).toBe(3);
    expect(await page.textContent('#file-identifiers + .rows-status')).toBe('Detail removed; 2 left.');
    expect(await seriousViolations(page)).toEqual([]);
    // At ten rows "Add" stops; removing one lets it add again.
    while ((await page.locator('#file-identifiers .identifier-row').count()) < 10) await page.click('#file-add-identifier');
    expect(await page.isDisabled('#file-add-identifier')).toBe(true);
    await page.click('#file-identifiers .identifier-row:nth-child(4) .remove-row');
    expect(await page.isDisabled('#file-add-identifier')).toBe(false);
  });

  it('lists submissions with filters, reveals values on request, edits and publishes a draft, exits and relists it', async () => {
    const draft = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: key(company.apiKey),
      payload: {
        status: 'draft',
        fraudType: 'money_mule',
        fraudReason: 'Account received transfers from four unrelated customers in an hour and sent them on at once.',
        identifiers: [{ label: 'phone', value: '0803 000 0001' }],
      },
    });
    expect(draft.statusCode).toBe(201);
    await page.click('[data-view=submissions]');
    await expect.poll(() => page.textContent('#submissions-count')).toContain('3 submissions');
    // A date range the API takes: tomorrow onwards finds nothing, today finds all three.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await page.fill('#filter-from', day(1));
    await page.click('#submissions-filter button[type=submit]');
    await expect.poll(() => page.textContent('#submissions-count')).toContain('0 submissions');
    await page.fill('#filter-from', day(-1));
    await page.fill('#filter-to', day(1));
    await page.click('#submissions-filter button[type=submit]');
    await expect.poll(() => page.textContent('#submissions-count')).toContain('3 submissions');
    await page.selectOption('#filter-status', 'draft');
    await page.click('#submissions-filter button[type=submit]');
    await expect.poll(() => page.textContent('#submissions-count')).toContain('1 submission ');
    await page.click('#submissions-list button');
    await expect.poll(() => page.textContent('#submission-identifiers')).toContain('hidden until revealed');
    expect(await page.textContent('#submission-identifiers')).not.toContain('2348030000001');
    await page.click('#reveal');
    await expect.poll(() => page.textContent('#submission-identifiers')).toContain('+2348030000001');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    // The draft is edited before it is published: a reason too short is refused beside the field.
    expect(await page.inputValue('#draft-reason')).toContain('four unrelated customers');
    await page.fill('#draft-reason', 'Too short.');
    await page.click('#draft-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#draft-reason', 'aria-invalid')).toBe('true');
    const edited = 'Received transfers from four unrelated customers within an hour and sent each on within minutes.';
    await page.selectOption('#draft-type', 'social_engineering');
    await page.fill('#draft-reason', edited);
    await page.click('#draft-form button[type=submit]');
    await expect.poll(() => page.textContent('#submission-message')).toBe('Draft saved.');
    expect(await page.textContent('#submission-reason')).toBe(edited);
    expect(await page.textContent('#submission-title')).toContain('Tricked into paying or sharing details');
    await page.click('#publish-draft');
    await expect.poll(() => page.textContent('#submission-message')).toBe('Published.');
    expect(await page.isVisible('#draft-form')).toBe(false);
    await page.fill('#exit-reason', 'no');
    await page.click('#exit-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#exit-reason', 'aria-invalid')).toBe('true');
    await page.fill('#exit-reason', 'The customer proved the transfers were their own salary.');
    await page.click('#exit-form button[type=submit]');
    await page.getByRole('dialog').getByRole('button', { name: 'Take off the list' }).click();
    await expect.poll(() => page.textContent('#submission-message')).toBe('Taken off the list.');
    await page.click('#relist');
    await expect.poll(() => page.textContent('#submission-message')).toBe('Back on the list.');
  });

  it("changes a draft's identifiers and evidence: reveal to edit, a refused file, an upload with its bytes counted", async () => {
    const evidence = await uploadedUrl(t, company.apiKey);
    const draft = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: key(company.apiKey),
      payload: {
        status: 'draft',
        fraudType: 'identity_theft',
        fraudReason: 'Opened an account with a stolen NIN slip and a borrowed face; the real holder came to the branch.',
        identifiers: [{ label: 'phone', value: '0803 000 0002' }],
        attachments: [evidence],
      },
    });
    expect(draft.statusCode).toBe(201);
    const id = draft.json().data.id as string;
    await page.click('[data-view=search]');
    await page.click('[data-view=submissions]');
    await page.selectOption('#filter-status', 'draft');
    await page.click('#submissions-filter button[type=submit]');
    await expect.poll(() => page.textContent('#submissions-list')).toContain('Identity theft');
    await page.click('#submissions-list button:has-text("identity theft")');
    await expect.poll(() => page.locator('#draft-evidence-list li').count()).toBe(1);
    expect(await page.isVisible('#draft-identifiers-box')).toBe(false);
    await page.click('#draft-edit-identifiers');
    await expect.poll(() => page.inputValue('#draft-identifier-0-value')).toBe('+2348030000002');
    await page.fill('#draft-identifier-0-value', '0803 000 0003');
    await page.click('#draft-add-identifier');
    await page.selectOption('#draft-identifier-1-label', 'account');
    await page.fill('#draft-identifier-1-value', '0010246780');
    await page.selectOption('#draft-identifier-1-bank', 'access-bank');

    // Not evidence: refused beside the list, with what can be used.
    await page.setInputFiles('#draft-evidence', {
      name: 'slip.png',
      mimeType: 'image/png',
      buffer: Buffer.from('MZ not a picture'),
    });
    await expect.poll(() => page.textContent('#draft-evidence-list')).toContain('slip.png: not added');
    // A 3 MB PDF: every progress answer the browser gives is written on the list; the last says all of it went.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progress: string[] }).progress = seen;
      new MutationObserver(() => {
        const text = document.getElementById('draft-evidence-list')?.textContent ?? '';
        if (text.includes(' sent')) seen.push(text);
      }).observe(document.getElementById('draft-evidence-list') as HTMLElement, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
    const size = 3_000_000;
    const pdf = Buffer.concat([
      Buffer.from(`%PDF-1.7\n1 0 obj\n<< /Length ${size} >>\nstream\n`, 'latin1'),
      randomBytes(size),
      Buffer.from('\nendstream\nendobj\n%%EOF\n'),
    ]);
    await page.setInputFiles('#draft-evidence', { name: 'statement.pdf', mimeType: 'application/pdf', buffer: pdf });
    await expect.poll(() => page.textContent('#draft-evidence-list')).toContain('statement.pdf: added');
    const progress = await page.evaluate(() => (window as unknown as { progress: string[] }).progress);
    expect(progress.some((text) => /statement\.pdf: 3\.0 MB of 3\.0 MB sent/.test(text))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.click('#draft-evidence-list button[aria-label="Remove Evidence file 1"]');
    await page.click('#draft-form button[type=submit]');
    await expect.poll(() => page.textContent('#submission-message')).toBe('Draft saved.');

    const decoded = await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${id}/decode`,
      headers: key(company.apiKey),
    });
    const report = decoded.json().data.report;
    expect(report.identifiers.map((i: { value: string }) => i.value).sort()).toEqual([
      '+2348030000003',
      '0010246780_access-bank',
    ]);
    expect(report.attachments).toHaveLength(1);
    expect(report.attachments[0]).not.toContain(pathOf(evidence).split('/').at(-1));

    // Changed and published without saving: the change is saved first, not dropped.
    const story = 'Opened an account with a stolen NIN slip; the real holder came to the branch and proved it.';
    await page.fill('#draft-reason', story);
    await page.click('#publish-draft');
    await expect.poll(() => page.textContent('#submission-message')).toBe('Published. Your changes were saved first.');
    const published = await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${id}/decode`,
      headers: key(company.apiKey),
    });
    expect([published.json().data.report.status, published.json().data.report.fraudReason]).toEqual(['published', story]);
  });

  it('lets a company admin invite a colleague, change their role and read the audit trail', async () => {
    await page.click('button[data-view="team"]');
    await expect.poll(() => page.textContent('#team-rows')).toContain(person.email);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    const colleague = `colleague-${Date.now()}@example.com`;
    await page.fill('#invite-email', 'not an address');
    await page.click('#invite-form button[type=submit]');
    await expect.poll(() => page.locator('#invite-form .field-error').count()).toBe(1);
    await page.fill('#invite-email', colleague);
    await page.selectOption('#invite-role', 'analyst');
    await page.click('#invite-form button[type=submit]');
    await expect.poll(() => page.inputValue('#invite-link')).toContain('/invitations/accept?token=');
    await expect.poll(() => page.textContent('#team-rows')).toContain(colleague);
    // Choosing a role saves nothing (arrow keys choose too); its own button saves it.
    await page.selectOption(`select[aria-label="Role of ${colleague}"]`, 'viewer');
    expect(await page.textContent('#team-message')).not.toContain('is now viewer');
    await page.click(`button[aria-label="Save the role of ${colleague}"]`);
    await expect.poll(() => page.textContent('#team-message')).toContain('is now viewer');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Role of ${colleague}`);
    const users = await t.app.inject({ method: 'GET', url: '/api/v1/external/users', headers: key(company.apiKey) });
    const invited = (users.json().data.users as Array<{ email: string; role: string }>).find((u) => u.email === colleague);
    expect(invited?.role).toBe('viewer');
    // On a phone each person is a card: every control in the window and at least 44 px tall, with
    // nothing scrolled sideways (a table hid the colleague's buttons past the right edge at 360 px).
    const controls = await page.locator('#team-rows button, #team-rows select').all();
    expect(controls.length).toBeGreaterThanOrEqual(4);
    for (const control of controls) {
      const box = await control.boundingBox();
      expect(box?.x).toBeGreaterThanOrEqual(0);
      expect((box?.x ?? 360) + (box?.width ?? 1)).toBeLessThanOrEqual(360);
      expect(box?.height).toBeGreaterThanOrEqual(44);
    }
    expect(await page.$eval('#view-team .scroll-x', (box) => box.scrollWidth <= box.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'team');
    // A wide screen keeps the table: its header row in sight, the columns side by side.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect
      .poll(async () => {
        const [name, email] = await Promise.all(
          ['Name', 'E-mail'].map((text) => page.locator('#view-team th', { hasText: text }).boundingBox()),
        );
        return (name?.height ?? 0) > 20 && name?.y === email?.y && (name?.x ?? 0) < (email?.x ?? 0);
      })
      .toBe(true);
    await page.setViewportSize({ width: 360, height: 780 });

    // API keys: a new key is shown once and works; rotating and revoking ask first.
    await page.click('button[data-view="keys"]');
    await expect.poll(() => page.locator('#keys-rows tr').count()).toBe(1);
    // A double press issues one key: a second would be live with no one ever shown it.
    await page.dblclick('#issue-key');
    await expect.poll(() => page.inputValue('#new-key')).toMatch(/^rf_/);
    const issued = await page.inputValue('#new-key');
    const whoami = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(issued) });
    expect(whoami.json().data.company.id).toBe(company.companyId);
    await expect.poll(() => page.locator('#keys-rows tr').count()).toBe(2);
    // Counted by the service once the desk is quiet (the table might show 2 before a second issue lands).
    await page.waitForTimeout(300);
    const listed = await t.app.inject({ method: 'GET', url: '/api/v1/external/keys', headers: key(company.apiKey) });
    expect(listed.json().data.keys).toHaveLength(2);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    const prefix = issued.slice(0, 8);
    const keyRow = page.locator('#keys-rows tr', { hasText: prefix });
    await keyRow.getByRole('button', { name: /Rotate/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replace key' }).click();
    await expect.poll(() => page.inputValue('#new-key')).not.toBe(issued);
    const replacement = await page.inputValue('#new-key');
    await expect.poll(() => page.locator('#keys-rows tr').count()).toBe(3);
    await page
      .locator('#keys-rows tr', { hasText: replacement.slice(0, 8) })
      .getByRole('button', { name: /Revoke/ })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.textContent('#keys-message')).toContain('was revoked');
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(replacement) });
    expect(refused.statusCode).toBe(401);

    await page.click('button[data-view="audit"]');
    await page.selectOption('#audit-action', 'search');
    await page.click('#audit-filter button[type=submit]');
    // Only searches, their action in words (the unfiltered page drawn on opening is replaced).
    await expect
      .poll(async () => [...new Set(await page.locator('#audit-rows td:nth-child(2)').allTextContents())])
      .toEqual(['Search']);
    // The search made earlier in this session: its kind and count, never the value searched for.
    expect(await page.textContent('#audit-rows')).toContain('Phone number · 1 found');
    expect(await page.textContent('#audit-rows')).not.toContain('8031234567');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'audit-trail');
    // Every action: a report is named by the start of its reference, and the page still fits a phone.
    await page.selectOption('#audit-action', '');
    await page.click('#audit-filter button[type=submit]');
    // A key is named as the API keys page shows it, so the two can be matched.
    await expect
      .poll(async () =>
        (await page.locator('#audit-rows td:nth-child(4)').allTextContents()).some((c) => /^key rf_\S+…$/.test(c)),
      )
      .toBe(true);
    // Cell by cell: the table's text runs one row's last cell into the next row's date (28/11/… after a hex id).
    await expect
      .poll(async () =>
        (await page.locator('#audit-rows td:nth-child(4)').allTextContents()).some((c) => /^report [0-9a-f]{8}$/.test(c)),
      )
      .toBe(true);
    expect(await fitsWidth(page)).toBe(true);
    // Each page is in the browser's history: its name in the tab, Back to the page before (not out
    // of the desk), and a reload stays on the page.
    expect(await page.title()).toBe('Audit trail — Redflag desk');
    await page.goBack();
    await expect.poll(() => page.isVisible('#view-keys')).toBe(true);
    expect(await page.title()).toBe('API keys — Redflag desk');
    await page.reload();
    await expect.poll(() => page.isVisible('#view-keys')).toBe(true);
    expect(new URL(page.url()).hash).toBe('#keys');
  });

  // An import through the browser under a loaded CI machine takes a while: more than the default 30 s.
  it('watches identifiers: one by hand, then a CSV file with its progress and its bad lines by number', {
    timeout: 120_000,
  }, async () => {
    await page.click('button[data-view="watchlist"]');
    await expect.poll(() => page.textContent('#watch-count')).toContain('0 identifiers watched');
    await page.selectOption('#watch-label', 'phone');
    // An empty value: said beside the field, with no "items/0/value" in sight.
    await page.click('#watch-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#watch-value', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#watch-form')).not.toContain('items/');
    await page.fill('#watch-value', '12');
    await page.click('#watch-form button[type=submit]');
    await expect.poll(() => page.locator('#watch-form .field-error').count()).toBe(1);
    await page.fill('#watch-value', '0803 765 4321');
    await page.fill('#watch-ref', 'cust-42');
    await page.click('#watch-form button[type=submit]');
    await expect.poll(() => page.textContent('#watch-list')).toContain('cust-42');
    expect(await page.locator('#watch-form .field-error').count()).toBe(0);
    expect(await page.getAttribute('#watch-value', 'aria-invalid')).toBeNull();
    // Watching it again is no mistake to correct: it says so.
    await page.fill('#watch-value', '0803 765 4321');
    await page.click('#watch-form button[type=submit]');
    await expect.poll(() => page.textContent('#watch-message')).toContain('already on your watchlist');
    expect(await page.locator('#watch-form .field-error').count()).toBe(0);
    // An account is watched at its bank, chosen from the list, and asked for in words when missing.
    await page.selectOption('#watch-label', 'account');
    await page.fill('#watch-value', '0010246780');
    await page.click('#watch-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#watch-bank', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#watch-form')).toContain('Choose the bank of this account');
    await page.locator('#watch-bank').selectOption({ index: 1 });
    const watched = page.waitForRequest((request) => request.url().endsWith('/api/v1/external/watchlist'));
    await page.click('#watch-form button[type=submit]');
    expect((await watched).postDataJSON().items[0].value).toBe(`0010246780_${await page.inputValue('#watch-bank')}`);
    await expect.poll(() => page.textContent('#watch-message')).toBe('Added to the watchlist.');

    const lines = ['label,value,ref'];
    for (let i = 0; i < 1500; i++) lines.push(`phone,0805${String(1_000_000 + i)},c-${i}`);
    lines[101] = 'phone,12,bad-phone';
    lines[1201] = 'colour,red';
    await page.setInputFiles('#import-file', {
      name: 'customers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(lines.join('\n')),
    });
    await page.click('#import-form button[type=submit]');
    await expect
      .poll(() => page.textContent('#import-status'), { timeout: 90_000 })
      .toContain('Done: 1,500 of 1,500 lines read · 1,498 added · 2 not added');
    expect(await page.textContent('#import-errors')).toMatch(/Line 102: .*Line 1202: /s);
    // 1,498 from the file, the phone and the account added by hand.
    await expect.poll(() => page.textContent('#watch-count')).toContain('1,500 identifiers watched');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.locator('#import-form').scrollIntoViewIfNeeded();
    await screenshot(page, 'watchlist-import');
  });

  it('lists a report that named a watched customer and a public report naming the bank, and searches in one press', async () => {
    const gamma = await createCompany(t, { businessName: 'Gamma Savings' });
    await createReport(t, gamma.apiKey, { identifiers: [{ label: 'phone', value: '0803 765 4321' }] });
    // The operators link Acme to its bank; a person cheated through it files, and the report is published.
    const operator = await createOperator(t);
    const banks = (await t.app.inject({ url: '/api/v1/meta-data/banks' })).json().data.entity as Array<{
      name: string;
      slug: string;
    }>;
    const acmeBank = banks.at(-3) as { name: string; slug: string };
    const linked = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/admin/companies/${company.companyId}/bank`,
      headers: key(operator.apiKey),
      payload: { bankSlug: acmeBank.slug },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const publicId = await filePublicReport(t, '0805 111 2233', { financialInstitution: acmeBank.name });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/public-reports/${publicId}/publish`,
      headers: key(operator.apiKey),
    });

    await page.click('button[data-view="watchlist"]');
    await expect.poll(() => page.textContent('#matches-list')).toContain('cust-42');
    expect(await page.textContent('#matches-list')).toContain('Named in a report by Gamma Savings');
    expect(await page.textContent('#matches-count')).toBe('1 update');
    await expect.poll(() => page.isVisible('#named-reports')).toBe(true);
    expect(await page.textContent('#named-count')).toBe('1 public report');
    await screenshot(page, 'watchlist-matches', { fromTop: true });
    await page.getByRole('button', { name: /^Read public report / }).click();
    await expect.poll(() => page.textContent('#named-report-identifiers')).toContain('+2348051112233');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('named-report-title');
    expect(await page.textContent('#named-report')).not.toContain('Jane');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'public-report-naming-the-bank', { of: '#named-reports' });
    // Past 20 updates the list pages, Newer and Older, the count saying where.
    for (let i = 0; i < 20; i++) {
      await createReport(t, gamma.apiKey, { identifiers: [{ label: 'phone', value: '0803 765 4321' }] });
    }
    await page.click('button[data-view="watchlist"]');
    await expect.poll(() => page.textContent('#matches-count')).toBe('21 updates · page 1 of 2');
    expect(await page.isDisabled('#matches-previous')).toBe(true);
    await page.click('#matches-next');
    await expect.poll(() => page.textContent('#matches-count')).toBe('21 updates · page 2 of 2');
    expect(await page.locator('#matches-list li').count()).toBe(1);
    expect(await page.isDisabled('#matches-next')).toBe(true);
    await page.getByRole('button', { name: 'Search Phone number: +2348037654321' }).click();
    await expect.poll(() => page.isVisible('#view-search')).toBe(true);
    await expect.poll(() => page.textContent('#search-result')).toContain('Gamma Savings');
    expect(await page.inputValue('#search-value')).toBe('+2348037654321');
  });

  it('screens a customer file: the bytes sent, then rows screened, then the matched rows to download', {
    timeout: 120_000,
  }, async () => {
    await page.click('button[data-view="screening"]');
    // A file without its header line: why, beside the file field, not "Validation failed".
    await page.setInputFiles('#screen-file', {
      name: 'no-header.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('phone,0803 123 4567,k-1\n'),
    });
    await page.click('#screen-form button[type=submit]');
    await expect.poll(() => page.textContent('#screen-form .field-error')).toContain('The first line must name the columns');
    const lines = ['label,value,ref'];
    for (let i = 0; i < 3000; i++) lines.push(`email,client.${i}@example.net,k-${i}`);
    lines[1501] = 'phone,0803 123 4567,k-hit'; // reported in the search test above
    lines[2001] = 'phone,12,k-bad';
    await page.setInputFiles('#screen-file', { name: 'book.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
    // The upload is held a moment, as on a slow line: a second press meanwhile sends nothing more.
    const slowUpload = async (route: Route) => {
      if (route.request().method() === 'POST') await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    };
    await page.route('**/api/v1/external/screenings', slowUpload);
    await page.click('#screen-form button[type=submit]');
    await page.click('#screen-form button[type=submit]');
    expect(await page.textContent('#screen-message')).toContain('still being sent');
    await expect
      .poll(() => page.textContent('#screen-status'), { timeout: 90_000 })
      .toContain('Done: 3,000 of 3,000 rows screened · 1 matched · 1 rejected');
    // Taken away once the held upload went on (taken away while it waits, its continue would throw).
    await page.unroute('**/api/v1/external/screenings', slowUpload);
    const csv = await page.evaluate(async () => {
      const link = document.querySelector<HTMLAnchorElement>('#screen-status a[href$="matches.csv"]');
      return (await fetch(link?.href ?? '')).text();
    });
    expect(csv.trim().split('\n')).toHaveLength(2);
    expect(csv).toContain('1502,phone,0803 123 4567,k-hit,');
    expect(await page.textContent('#screen-jobs')).toContain('Done');
    // The refused file's job (failed) and this one.
    expect(await page.locator('#screen-jobs li').count()).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'screening');
  });

  it('sends a person whose session has expired back to sign in, saying why; signing in again asks for the code', async () => {
    await page.click('[data-view=search]');
    clock.advance(31 * 60_000);
    await page.fill('#search-value', '0803 123 4567');
    await page.click('#search-button');
    await expect.poll(() => page.isVisible('#view-sign-in')).toBe(true);
    expect(await page.textContent('#notice')).toContain('session has ended');
    await page.fill('#email', person.email);
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.isVisible('#totp-box')).toBe(true);
    await page.fill('#totp', totpCode(secret, clock.now()));
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.isVisible('#view-search')).toBe(true);
    // The desk was loaded afresh: nothing of the ended session is left for whoever signs in next.
    expect(await page.inputValue('#search-value')).toBe('');
    await page.click('[data-view=submissions]');
    await expect.poll(() => page.locator('#submissions-list li').count()).toBeGreaterThan(0);
    expect(await page.isVisible('#submission')).toBe(false);

    // Signing out everywhere ends this session (and any other) on the server, not only in this tab.
    // It is on the account page, not in the bar: on a phone the bar had a line of its own for it.
    const cookies = await page.context().cookies();
    expect(await page.isVisible('#sign-out-everywhere')).toBe(false);
    await page.click('[data-view=account]');
    await page.click('#sign-out-everywhere');
    await expect.poll(() => page.textContent('#notice')).toContain('signed out on every device');
    const session = cookies.find((c) => c.name === 'redflag_session');
    const reuse = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { cookie: `redflag_session=${session?.value}` },
    });
    expect(reuse.statusCode).toBe(401);
  });

  it('asks a person with accounts at two members which one, and then says whose desk it is', async () => {
    const beta = await createCompany(t, { businessName: 'Beta Bank' });
    const email = `consultant.${randomBytes(4).toString('hex')}@bank.example`;
    for (const companyId of [company.companyId, beta.companyId]) {
      const invited = await invite(t, { companyId }, 'analyst', email);
      expect((await accept(t, invited.token)).statusCode).toBe(200);
    }
    const other = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    await other.goto(base);
    await other.fill('#email', email);
    await other.fill('#password', PASSWORD);
    await other.press('#password', 'Enter');
    await expect.poll(() => other.isVisible('#member-box')).toBe(true);
    expect(await other.locator('#member-choices label').allTextContents()).toEqual([' Acme Microfinance Bank', ' Beta Bank']);
    expect(await other.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('member');
    expect(await seriousViolations(other)).toEqual([]);
    expect(await fitsWidth(other)).toBe(true);
    await screenshot(other, 'sign-in-choose-member');
    // Another address forgets the choice, so it is never sent for someone else.
    await other.fill('#email', `other.${email}`);
    expect(await other.isVisible('#member-box')).toBe(false);
    await other.fill('#email', email);
    await other.press('#password', 'Enter');
    await expect.poll(() => other.isVisible('#member-box')).toBe(true);
    // By keyboard: the arrow moves to the second member, Enter signs in there.
    await other.keyboard.press('ArrowDown');
    await other.keyboard.press('Enter');
    await expect.poll(() => other.isVisible('#view-search')).toBe(true);
    expect(await other.textContent('#member-name')).toBe('Beta Bank');
    // On a wide screen the session's buttons sit on the title's line and cover no page of the menu
    // (an analyst's short menu once ran under them: a click on "Disputes" signed the person out).
    await other.setViewportSize({ width: 1280, height: 800 });
    const boxes = await other.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('#nav button')]
        .filter((b) => b.getClientRects().length > 0)
        .map((b) => ({ id: b.id || b.dataset.view, ...b.getBoundingClientRect().toJSON() })),
    );
    const overlaps = boxes.flatMap((a, i) =>
      boxes
        .slice(i + 1)
        .filter((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        .map((b) => `${a.id} / ${b.id}`),
    );
    expect(overlaps).toEqual([]);
    await other.context().close();

    // Acme's account takes a second factor: without its code, Acme is not named, Beta (which the
    // password opens anyway) is offered beside "another member, with the code", and chosen.
    const atAcme = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sign-in',
      payload: { email, password: PASSWORD, memberId: company.companyId },
    });
    await enrolTotp(t, sessionCookie(atAcme), clock);
    const third = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    await third.goto(base);
    await third.fill('#email', email);
    await third.fill('#password', PASSWORD);
    await third.press('#password', 'Enter');
    await expect.poll(() => third.isVisible('#member-box')).toBe(true);
    expect(await third.locator('#member-choices label').allTextContents()).toEqual([
      ' Beta Bank',
      ' Another member, with the code from my authenticator app',
    ]);
    expect(await third.isVisible('#totp-box')).toBe(true);
    await third.check('#member-choices input[value]:not([value=""])');
    await third.click('#sign-in-form button[type=submit]');
    await expect.poll(() => third.isVisible('#view-search')).toBe(true);
    expect(await third.textContent('#member-name')).toBe('Beta Bank');
    expect(await seriousViolations(third)).toEqual([]);
    await third.context().close();
  });
});
