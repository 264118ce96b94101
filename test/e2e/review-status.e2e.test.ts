import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator, key } from '../helpers/principals.js';
import { nextAddress, uniquePhone } from '../helpers/public-reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { fitsWidth, hasChromium, inSight, launchChromium, screenshot, seriousViolations, tabTo } from './browser.js';

// The status page of the person who asked for a review (decision 0133): /review#status/<id>.
const PORT = 4809;
const base = `http://127.0.0.1:${PORT}`;
const PUBLIC = '/api/v1/public/review-requests';
const ADMIN = '/api/v1/admin/review-requests';
const STATEMENT =
  'That number is mine and has been for ten years. I have never sold anything online; my bank froze my account last week.';
const NOTE = 'Nothing is listed under this number; told him by e-mail.';
const CONTACT = 'privacy@redflag.example.ng';
let t: TestApp;
let browser: Browser;
let page: Page;
let operator: Awaited<ReturnType<typeof createOperator>>;

/** A request sent through the API from its own address; its id. */
async function ask(): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: PUBLIC,
    remoteAddress: nextAddress(),
    payload: {
      name: 'Chidi Eze',
      email: 'chidi@example.com',
      identifiers: [{ label: 'phone', value: uniquePhone() }],
      statement: STATEMENT,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

const close = (id: string) =>
  t.app.inject({
    method: 'POST',
    url: `${ADMIN}/${id}/close`,
    headers: key(operator.apiKey),
    payload: { outcome: 'not_listed', note: NOTE },
  });

describe.skipIf(!hasChromium)('the review request status page at /review#status/<id>, in Chromium at 360 px', () => {
  beforeAll(async () => {
    t = await buildTestApp({ config: { publicUrl: base, contactEmail: CONTACT } });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    operator = await createOperator(t);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sends a request, follows the link to see it waiting, then answered once the operators close it', async () => {
    await page.goto(`${base}/review`);
    // The operators' address (REDFLAG_CONTACT_EMAIL), for what the form does not cover.
    await expect.poll(() => page.textContent('#contact-line')).toContain(`Write to our team at ${CONTACT}.`);
    expect(await page.getAttribute('#contact-line a', 'href')).toBe(`mailto:${CONTACT}`);
    await page.fill('#name', 'Chidi Eze');
    await page.fill('#email', 'chidi.eze@example.com');
    await page.selectOption('#identifier-0-label', 'phone');
    await page.fill('#identifier-0-value', '0803 222 3344');
    await page.fill('#statement', STATEMENT);
    await page.click('#submit');
    await expect.poll(() => page.isVisible('#done')).toBe(true);
    const reference = (await page.textContent('#reference')) as string;
    expect(reference).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
    // The confirmation promises no time the service does not keep.
    expect(await page.textContent('#done')).not.toMatch(/\d+ days|working days|within/);

    // The link carries the full id in the fragment only.
    const href = (await page.getAttribute('#status-link', 'href')) as string;
    expect(href).toMatch(/^\/review#status\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const id = href.slice('/review#status/'.length);
    expect(id.slice(0, 8).toUpperCase()).toBe(reference.replace('-', ''));
    // Followed with the keyboard alone.
    await tabTo(page, '#status-link');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status-heading')).toBe('Waiting for an answer');
    expect(page.url()).toBe(`${base}${href}`);
    expect(await page.isVisible('#review-form')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('status-title');
    const waiting = (await page.textContent('#status-result')) as string;
    expect(waiting).toContain(reference);
    expect(waiting).toContain('answer you at the e-mail or phone you gave');
    expect(waiting).toContain('We cannot say exactly when');
    expect(waiting).not.toMatch(/\d+ days|working days|within/);
    expect(await page.textContent('#status-facts')).not.toContain('Answered');
    // Not answered yet: no answer is said to have gone missing.
    await expect
      .poll(() => page.textContent('#status-contact'))
      .toBe(`Something here looks wrong? Write to our team at ${CONTACT}, and quote the reference ${reference}.`);
    expect(await page.inputValue('#status-address')).toBe(`${base}${href}`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'review-request-status');

    // Back returns to the confirmation the person came from; Forward to the status again.
    await page.goBack();
    await expect.poll(() => page.isVisible('#done')).toBe(true);
    expect(await page.isVisible('#status-page')).toBe(false);
    await page.goForward();
    await expect.poll(() => page.isVisible('#status-result')).toBe(true);
    expect(await page.isVisible('#done')).toBe(false);

    // The operators close it; a reload says it was answered, and nothing of what they found.
    const closed = await close(id);
    expect(closed.statusCode, closed.body).toBe(200);
    await page.reload();
    await expect.poll(() => page.textContent('#status-heading')).toBe('Answered');
    // What the page says of the request; the way to the operators is said apart, once, under it.
    const answered = [
      await page.textContent('#status-meaning'),
      await page.textContent('#status-next'),
      await page.textContent('#status-facts'),
    ].join(' ');
    await expect
      .poll(() => page.textContent('#status-contact'))
      .toBe(
        `Their answer did not reach you, or something here looks wrong? Write to our team at ${CONTACT}, and quote the reference ${reference}.`,
      );
    expect(answered).toMatch(
      /Our team marked your request as answered on \d{1,2} [A-Z][a-z]{2} \d{4}: they answer at the e-mail or phone you gave/,
    );
    expect(answered).toContain('look in its spam or junk folder');
    // One instruction, not a second that disagrees (this page has no form to send a request on).
    expect(answered).not.toContain('quote the reference');
    expect(answered).not.toMatch(/new request|on this page, say/);
    expect(await page.textContent('#status-facts')).toContain('Answered');
    for (const secret of ['not_listed', 'Nothing is listed', 'disputed', 'declined', 'chidi', '3344', '@']) {
      expect(answered, secret).not.toContain(secret);
    }
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    // A service with no address to write to: the one way left is a new request, through the form.
    const contact = '**/api/v1/meta-data/contact';
    await page.route(contact, (route) =>
      route.fulfill({ json: { success: true, message: 'Contact fetched', data: { contact: { email: null } } } }),
    );
    await page.reload();
    await expect
      .poll(() => page.textContent('#status-contact'))
      .toBe(
        `Their answer did not reach you? Send a new request, say that their answer did not reach you, and quote the reference ${reference}.`,
      );
    expect(await page.getAttribute('#status-contact a', 'href')).toBe('/review');
    expect(await page.textContent('#status-result')).not.toContain('Write to our team');
    expect(await seriousViolations(page)).toEqual([]);
    await page.unroute(contact);
    // The page keeps the address it was given: the next test starts from a page that asks again.
    await page.goto('about:blank');
  });

  it('checks a pasted request id, and says plainly when it finds none', async () => {
    const id = await ask();
    await page.goto(`${base}/review#status/${randomUUID()}`);
    await expect.poll(() => page.textContent('#status-error')).toContain("We can't find a request with that ID");
    // Nothing found is when a way to the operators matters most.
    await expect.poll(() => page.textContent('#status-problem-contact')).toContain(`Write to our team at ${CONTACT}.`);
    expect(await page.isVisible('#status-result')).toBe(false);
    expect(await page.isVisible('#status-retry')).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    // The short reference is not enough: said so, and nothing is asked of the service.
    await tabTo(page, '#status-id');
    await page.keyboard.type(`${id.slice(0, 4)}-${id.slice(4, 8)}`.toUpperCase());
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status-form-message')).toContain('short reference');
    expect(await page.getAttribute('#status-id', 'aria-invalid')).toBe('true');

    // The whole link pasted, with spaces around it, opens its status.
    await page.fill('#status-id', `  ${base}/review#status/${id.toUpperCase()} `);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status-heading')).toBe('Waiting for an answer');
    expect(page.url()).toBe(`${base}/review#status/${id}`);
    expect(await page.isVisible('#status-problem')).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);

    // A copy button puts the link on the clipboard (or, without one, selects it to copy by hand).
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.click('#copy-address');
    await expect.poll(() => page.textContent('#copy-message')).toMatch(/Link copied|selected/);
    if ((await page.textContent('#copy-message'))?.includes('Link copied')) {
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${base}/review#status/${id}`);
    }
  });

  it('says when the network fails (and tries again) and when the per-address limit is reached', async () => {
    const id = await ask();
    const url = `**/api/v1/public/review-requests/${id}/status`;
    await page.route(url, (route) => route.abort('internetdisconnected'));
    await page.goto(`${base}/review#status/${id}`);
    await expect.poll(() => page.textContent('#status-error')).toContain("We couldn't reach Redflag");
    expect(await page.isVisible('#status-retry')).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.unroute(url);

    await page.click('#status-retry');
    await expect.poll(() => page.textContent('#status-heading')).toBe('Waiting for an answer');
    expect(await page.isVisible('#status-problem')).toBe(false);

    // The per-address limit (60 reads a minute), reached from the browser's own address, in words.
    let limited = false;
    for (let i = 0; i < 60 && !limited; i++) {
      const res = await t.app.inject({ url: `${PUBLIC}/${id}/status`, remoteAddress: '127.0.0.1' });
      limited = res.statusCode === 429;
    }
    expect(limited).toBe(true);
    await page.reload();
    await expect.poll(() => page.textContent('#status-error')).toContain('You have checked many times in a short while');
    expect(await page.textContent('#status-error')).toContain('Please wait a minute, then try again');
    expect(await page.isVisible('#status-retry')).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  });

  it('says in plain words what to check on the form, with the label in sight, and drops a message once corrected', async () => {
    await page.goto(`${base}/review`);
    await page.fill('#name', 'Chidi Eze');
    await page.fill('#email', 'chidi at example');
    await page.selectOption('#identifier-0-label', 'account');
    await page.fill('#identifier-0-value', '00102467');
    await page.selectOption('#identifier-0-bank', 'access-bank');
    await page.fill('#statement', STATEMENT);
    await page.click('#submit');
    await expect.poll(() => page.getAttribute('#identifier-0-value', 'aria-invalid')).toBe('true');
    const said = (await page.locator('#review-form .field-error').allTextContents()).join(' | ');
    expect(said).toBe('Check the e-mail address: it looks incomplete or has spaces. | An account number has 10 digits.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);

    // Corrected, the e-mail address loses its mark and message at once; the account keeps its own.
    await page.fill('#email', 'chidi@example.com');
    expect(await page.getAttribute('#email', 'aria-invalid')).toBeNull();
    expect(await page.getAttribute('#email', 'aria-describedby')).toBe('contact-hint');
    expect(await page.locator('#review-form .field-error').allTextContents()).toEqual(['An account number has 10 digits.']);

    // Sent again, the keyboard goes up to the account number, with its label and hint in sight
    // rather than above the screen's edge.
    await page.click('#submit');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('identifier-0-value');
    const top = (selector: string) => page.evaluate((s) => document.querySelector(s)?.getBoundingClientRect().top, selector);
    expect(await top('label[for="identifier-0-value"]')).toBeGreaterThanOrEqual(0);
    // However it is brought up to the screen's top edge (Chromium's focus may centre it instead).
    await page.evaluate(() => {
      window.scrollTo(0, document.body.scrollHeight);
      document.getElementById('identifier-0-value')?.scrollIntoView();
    });
    expect(await top('label[for="identifier-0-value"]')).toBeGreaterThanOrEqual(0);
  });

  it('says when the connection drops while sending ("Sending…" not in the error red), and sends again', async () => {
    const uncaught: string[] = [];
    page.on('pageerror', (error) => uncaught.push(error.message));
    await page.goto(`${base}/review`);
    await page.fill('#name', 'Chidi Eze');
    await page.fill('#email', 'chidi.eze@example.com');
    await page.fill('#identifier-0-value', uniquePhone());
    await page.fill('#statement', STATEMENT);
    // The request held on its way, then dropped.
    let drop: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      drop = resolve;
    });
    await page.route(`**${PUBLIC}`, async (route) => {
      await held;
      await route.abort('internetdisconnected');
    });
    await page.click('#submit');
    await expect.poll(() => page.textContent('#form-message')).toBe('Sending…');
    expect(await page.$eval('#form-message', (p) => getComputedStyle(p).color)).toBe('rgb(27, 31, 36)');
    drop();
    await expect
      .poll(() => page.textContent('#form-message'))
      .toBe("We couldn't reach Redflag, so nothing was sent. Check your internet connection, then press Send again.");
    expect(await page.$eval('#form-message', (p) => getComputedStyle(p).color)).toBe('rgb(164, 22, 26)');
    // Read out once, by its live region, and in sight; the keyboard stays on Send, to press it again.
    expect(await page.getAttribute('#form-message', 'role')).toBe('alert');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('submit');
    expect(await inSight(page, '#form-message')).toBe(true);
    expect(uncaught).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.unroute(`**${PUBLIC}`);
    // The same button, pressed again, sends what is still on the page.
    await page.click('#submit');
    await expect.poll(() => page.isVisible('#done')).toBe(true);
    page.removeAllListeners('pageerror');
  });
});
