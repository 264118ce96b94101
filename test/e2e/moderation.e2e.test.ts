import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/modules/users/totp.js';
import { accept, invite, PASSWORD, sessionCookie, sessionHeaders, signIn, testClock } from '../helpers/people.js';
import { createOperator } from '../helpers/principals.js';
import { filePublicReport, uniquePhone } from '../helpers/public-reports.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { samples, uploadFile } from '../helpers/uploads.js';
import { fitsWidth, hasChromium, launchChromium, screenshot, seriousViolations } from './browser.js';

const PORT = 4804;
const base = `http://127.0.0.1:${PORT}`;
const clock = testClock(Date.now());
let t: TestApp;
let browser: Browser;
let page: Page;
let moderator: Awaited<ReturnType<typeof invite>>;
let secret = '';

/**
 * Whether an element starts at the top of the screen (within 40 px of its edge), or as near as the
 * page scrolls: a short page ends before its last heading can reach the top.
 */
const atTop = (selector: string) =>
  page.evaluate((s) => {
    const top = document.querySelector(s)?.getBoundingClientRect().top ?? Number.NaN;
    const scrolledToEnd = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;
    return top >= 0 && (top < 40 || scrolledToEnd);
  }, selector);

/**
 * The values in the text of `selector` that a line break cuts: phone numbers, and either half of an
 * e-mail address (a break just after its @ is allowed, as emailText offers it).
 */
function cutValues(selector: string): Promise<string[]> {
  return page.evaluate((s) => {
    const cut: string[] = [];
    for (const element of document.querySelectorAll(s)) {
      const nodes: Text[] = [];
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) nodes.push(walker.currentNode as Text);
      // A place in the element's whole text as a text node and an offset in it.
      const at = (offset: number): [Text, number] => {
        let left = offset;
        for (const node of nodes) {
          if (left <= node.length) return [node, left];
          left -= node.length;
        }
        throw new Error('past the end');
      };
      const text = nodes.map((node) => node.data).join('');
      for (const match of text.matchAll(/\+?\d[\d ()]{6,}\d|[^\s,@]+@|(?<=@)[^\s,]+/g)) {
        const range = document.createRange();
        range.setStart(...at(match.index));
        range.setEnd(...at(match.index + match[0].length));
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) cut.push(match[0]);
      }
    }
    return cut;
  }, selector);
}

/** How wide the fact whose value contains `text` is, as a share of its whole grid. */
const factShare = (grid: string, text: string) =>
  page.evaluate(
    ([g, t]) => {
      const dl = document.querySelector(g as string);
      const dd = [...(dl?.querySelectorAll('dd') ?? [])].find((d) => d.textContent?.includes(t as string));
      return dl && dd ? dd.getBoundingClientRect().width / dl.getBoundingClientRect().width : 0;
    },
    [grid, text],
  );

describe.skipIf(!hasChromium)('the operators’ moderation queue in the desk, in Chromium at 360 px', () => {
  beforeAll(async () => {
    t = await buildTestApp({ config: { publicUrl: base }, now: clock.now });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    const operator = await createOperator(t);
    moderator = await invite(t, { operatorId: operator.operatorId }, 'moderator');
    expect((await accept(t, moderator.token)).statusCode).toBe(200);
    // The second factor is enrolled over the API here; the desk's enrolment has its own test.
    const cookie = sessionCookie(await signIn(t, moderator.email));
    const enrol = await t.app.inject({ method: 'POST', url: '/api/v1/auth/totp', headers: sessionHeaders(t, cookie) });
    secret = enrol.json().data.secret;
    const confirm = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/totp/confirm',
      headers: sessionHeaders(t, cookie),
      payload: { code: totpCode(secret, clock.now()) },
    });
    expect(confirm.statusCode).toBe(200);
    clock.advance(60_000); // a fresh code for the browser's sign-in (each code works once)
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a moderator reads a public report decoded, publishes one and rejects another with a reason', async () => {
    const evidence = await uploadFile(t, undefined, samples.pdf(), { url: '/api/v1/public/uploads' });
    await filePublicReport(t, uniquePhone());
    // Filed last, so listed first: the report the moderator opens.
    await filePublicReport(t, '0803 222 3344', { attachments: [evidence.json().data.url] });
    await page.goto(base);
    await page.fill('#email', moderator.email);
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.isVisible('#totp-box')).toBe(true);
    await page.fill('#totp', totpCode(secret, clock.now()));
    await page.click('#sign-in-form button[type=submit]');
    await expect.poll(() => page.isVisible('#view-search')).toBe(true);
    expect(await page.isVisible('[data-view=file]')).toBe(false);

    await page.click('[data-view=moderation]');
    await expect.poll(() => page.textContent('#moderation-count')).toBe('2 waiting');
    // The menu marks the page shown, and the keyboard starts at its heading, not on the menu.
    expect(await page.getAttribute('[data-view=moderation]', 'aria-current')).toBe('page');
    expect(await page.evaluate(() => document.activeElement?.closest('#view-moderation')?.tagName)).toBe('SECTION');
    await page.click('#moderation-list li:first-child button');
    await expect.poll(() => page.isVisible('#moderation-report')).toBe(true);
    // The keyboard and the eye start at the report's title, at the top of the screen with the report
    // under it (focus on the whole panel scrolled the title off the top).
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('moderation-title');
    expect(await atTop('#moderation-title')).toBe(true);
    expect(await page.textContent('#moderation-identifiers')).toMatch(/Phone number: \+234/);
    expect(await page.textContent('#moderation-details')).toMatch(/Amount lost\s*NGN 250,000/);
    // The victim's and the reporter's phone numbers and addresses stay whole ("+23480987654" over "32").
    expect(await page.textContent('#moderation-details')).toMatch(/Reporter\s*Ola Ade, ola@example\.org, \+234\d{10}/);
    expect(await cutValues('#moderation-details dd')).toEqual([]);
    expect(await page.textContent('#moderation-title')).toContain('waiting for a decision');
    // The evidence the decision rests on opens from here: the file's own bytes.
    expect(await page.locator('#moderation-evidence a').count()).toBe(1);
    const file = await page.evaluate(async () => {
      const href = document.querySelector<HTMLAnchorElement>('#moderation-evidence a')?.href ?? '';
      return (await (await fetch(href)).text()).slice(0, 5);
    });
    expect(file).toBe('%PDF-');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.click('#moderation-publish');
    await expect.poll(() => page.textContent('#moderation-count')).toBe('1 waiting · published');
    // The keyboard carries on at the next report waiting, not at the top of the page.
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('#moderation-list') !== null)).toBe(true);

    await page.click('#moderation-list li:first-child button');
    await page.fill('#reject-reason', 'dup');
    await page.click('#reject-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#reject-reason', 'aria-invalid')).toBe('true');
    await page.fill('#reject-reason', 'Duplicate of a report we already published.');
    await page.click('#reject-form button[type=submit]');
    await page.getByRole('dialog').getByRole('button', { name: 'Reject report' }).click();
    await expect.poll(() => page.textContent('#moderation-count')).toBe('0 waiting · rejected');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('moderation-count');

    // The published report, found by the reference its filer quotes, is taken down from here.
    const published = await t.database.db
      .selectFrom('public_reports')
      .select('id')
      .where('status', '=', 'published')
      .executeTakeFirstOrThrow();
    const reference = `${published.id.slice(0, 4)}-${published.id.slice(4, 8)}`;
    await page.fill('#moderation-reference', 'not-a-ref');
    await page.click('#reference-form button[type=submit]');
    await expect.poll(() => page.getAttribute('#moderation-reference', 'aria-invalid')).toBe('true');
    await page.fill('#moderation-reference', reference.toLowerCase());
    await page.press('#moderation-reference', 'Enter');
    await expect.poll(() => page.textContent('#moderation-title')).toContain('published');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('moderation-title');
    expect(await atTop('#moderation-title')).toBe(true);
    expect(await page.textContent('#moderation-details')).toContain(reference.toUpperCase());
    expect(await page.isVisible('#moderation-publish')).toBe(false);
    expect(await page.textContent('#reject-button')).toBe('Take down');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.fill('#reject-reason', 'Withdrawn by the victim, who was repaid.');
    await page.click('#reject-button');
    await page.getByRole('dialog').getByRole('button', { name: 'Take down' }).click();
    await expect.poll(() => page.textContent('#moderation-count')).toBe('0 waiting · taken down');
    const row = await t.database.db
      .selectFrom('public_reports')
      .select('status')
      .where('id', '=', published.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('rejected');
  });

  it('the person wrongly listed asks for a review from a phone; the moderator reads it, searches it and closes it', async () => {
    // The person's side: a phone, no account, the public page the report form links to.
    const person = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
    await person.goto(`${base}/report`);
    await person.click('a[href="/review"]');
    await expect.poll(() => person.isVisible('#review-form')).toBe(true);
    expect(await seriousViolations(person)).toEqual([]);
    expect(await fitsWidth(person)).toBe(true);
    await person.fill('#name', 'Chidi Eze');
    await person.click('#submit');
    await expect.poll(() => person.getAttribute('#statement', 'aria-invalid')).toBe('true');
    // Neither contact given: asked for in words beside the e-mail field.
    expect(await person.getAttribute('#email', 'aria-invalid')).toBe('true');
    expect(await person.textContent('#review-form')).toContain('Tell us why the listing is wrong');
    await screenshot(person, 'review-request');
    await person.fill('#email', 'chidi.eze@example.com');
    await person.selectOption('#identifier-0-label', 'phone');
    await person.fill('#identifier-0-value', '0803 222 3344');
    await person.fill(
      '#statement',
      'That number is mine and has been for ten years. I have never sold anything online; my bank froze my account last week.',
    );
    await person.click('#submit');
    await expect.poll(() => person.isVisible('#done')).toBe(true);
    const reference = await person.textContent('#reference');
    expect(reference).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
    expect(await seriousViolations(person)).toEqual([]);
    await person.context().close();

    // The moderator's side.
    await page.click('[data-view=reviews]');
    await expect.poll(() => page.textContent('#reviews-list')).toContain(reference as string);
    expect(await page.textContent('#reviews-list')).toContain('Phone number');
    await page.click('#reviews-list li:first-child button');
    await expect.poll(() => page.isVisible('#review')).toBe(true);
    // The request's title at the top of the screen with its details under it, not at the bottom edge.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('review-title');
    expect(await atTop('#review-title')).toBe(true);
    expect(await page.textContent('#review-facts')).toContain('chidi.eze@example.com');
    expect(await cutValues('#review-facts dd')).toEqual([]);
    expect(await page.textContent('#review-identifiers')).toContain('+2348032223344');
    await page.click('#review-search');
    // The phone is on a public report published earlier in this file (then taken down): none listed now.
    await expect
      .poll(() => page.textContent('#review-search-results'))
      .toMatch(/Phone number: \+2348032223344\s*0 member reports, 0 public reports/);
    // Each detail searched has its own Search, which opens the search page with it (no retyping).
    const searchPhone = page.getByRole('button', { name: 'Search Phone number: +2348032223344' });
    expect(await searchPhone.count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.selectOption('#review-outcome', 'not_listed');
    const note =
      'Nothing is listed under this number: the one public report that named it was taken down. Told him so by e-mail on the day.';
    await page.fill('#review-note', note);
    await page.click('#review-close-form button[type=submit]');
    await expect.poll(() => page.textContent('#review-message')).toBe('Closed: nothing was listed.');
    const closed = await t.database.db.selectFrom('review_requests').select(['status', 'outcome']).executeTakeFirstOrThrow();
    expect(closed).toEqual({ status: 'closed', outcome: 'not_listed' });
    // The closing note reads as a paragraph across the panel, not squeezed into one cell of the grid.
    expect(await factShare('#review-facts', 'Told him so')).toBeGreaterThan(0.95);
    expect(await fitsWidth(page)).toBe(true);

    await searchPhone.click();
    await expect.poll(() => page.isVisible('#view-search')).toBe(true);
    expect(await page.inputValue('#search-label')).toBe('phone');
    expect(await page.inputValue('#search-value')).toBe('+2348032223344');
    await expect.poll(() => page.getAttribute('#search-result', 'data-render-ms')).not.toBeNull();

    // Back to the request, closed: opened again, it says the same, and its title is at the top again.
    await page.goBack();
    await expect.poll(() => page.isVisible('#view-reviews')).toBe(true);
    await page.selectOption('#reviews-status', 'closed');
    await page.click('#reviews-filter button[type=submit]');
    await expect.poll(() => page.textContent('#reviews-list')).toContain(reference as string);
    await page.click('#reviews-list li:first-child button');
    // The facts of this request are still in the hidden panel from when it was open: wait until the
    // panel is shown again (the title takes the focus last), or the grid measures 0 px wide.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('review-title');
    expect(await page.textContent('#review-facts')).toContain(note);
    expect(await factShare('#review-facts', note)).toBeGreaterThan(0.95);
    expect(await atTop('#review-title')).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  });
});
