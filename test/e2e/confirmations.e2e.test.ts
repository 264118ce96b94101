import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, testClock } from '../helpers/people.js';
import { createCompany, key } from '../helpers/principals.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';
import { fitsWidth, hasChromium, seriousViolations, signedInPhonePage, tabTo } from './browser.js';

// Decision 0131: what cannot be undone asks first, in a modal <dialog> whose default is Cancel.
const PORT = 4807;
const base = `http://127.0.0.1:${PORT}`;
const clock = testClock(Date.now());
let t: TestApp;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let us: Awaited<ReturnType<typeof createCompany>>;

const dialog = () => page.getByRole('dialog');
const isOpen = () => page.evaluate(() => document.querySelector('dialog[open]') !== null);
const focused = () =>
  page.evaluate(() => ({
    text: document.activeElement?.textContent ?? '',
    label: document.activeElement?.getAttribute('aria-label') ?? '',
    inDialog: document.activeElement?.closest('dialog') !== null,
  }));
const get = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: key(us.apiKey) })).json().data;

describe.skipIf(!hasChromium)('asking before what cannot be undone, in Chromium at 360 px', () => {
  beforeAll(async () => {
    t = await buildTestApp({ config: { publicUrl: base, webhookAllowPrivate: true }, now: clock.now });
    await t.app.listen({ port: PORT, host: '127.0.0.1' });
    receiver = await startReceiver();
    us = await createCompany(t, { businessName: 'Wema Test Bank' });
    const admin = await createUser(t, clock, { companyId: us.companyId }, 'admin', { totp: true });
    ({ browser, page } = await signedInPhonePage(base, admin, clock.now));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('revoking a key asks: Enter, Cancel and Escape leave it working, “Revoke key” revokes it', async () => {
    const issued = await t.app.inject({ method: 'POST', url: '/api/v1/external/keys', headers: key(us.apiKey), payload: {} });
    const apiKey: string = issued.json().data.apiKey;
    const keys = async () => (await get('/api/v1/external/keys')).keys as { prefix: string; status: string }[];
    const prefix = (await keys()).find((k) => apiKey.startsWith(k.prefix))?.prefix as string;
    const works = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/whoami', headers: key(apiKey) })).statusCode === 200;
    await page.click('button[data-view="keys"]');
    await expect.poll(() => page.locator('#keys-rows tr').count()).toBe(2);
    const revoke = `#keys-rows button[aria-label="Revoke key ${prefix}"]`;

    // Reached and pressed with the keyboard alone.
    await tabTo(page, revoke, 200);
    await page.keyboard.press('Enter');
    await expect.poll(isOpen).toBe(true);
    expect(await dialog().getByRole('heading').textContent()).toBe(`Revoke the key ‘${prefix}…’?`);
    expect(await dialog().textContent()).toContain('stop working at once. This cannot be undone.');
    // Cancel has the focus: Enter alone never destroys.
    expect(await focused()).toMatchObject({ text: 'Cancel', inDialog: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    // The keyboard stays in the dialog: Tab reaches the action, Shift+Tab goes back to Cancel.
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ text: 'Revoke key', inDialog: true });
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toMatchObject({ text: 'Cancel', inDialog: true });
    // Past the last button Chromium goes to its own controls, then back to Cancel: never to the page behind.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ text: 'Cancel', inDialog: true });
    // A click beside the dialog does not answer it.
    await page.mouse.click(5, 5);
    expect(await isOpen()).toBe(true);
    await dialog().getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(isOpen).toBe(false);
    // The dialog leaves the page, and focus is back on the button that opened it.
    await expect.poll(() => page.locator('dialog').count()).toBe(0);
    expect(await focused()).toMatchObject({ label: `Revoke key ${prefix}` });
    expect(await works()).toBe(true);

    await page.keyboard.press('Enter');
    await expect.poll(isOpen).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(isOpen).toBe(false);
    expect(await focused()).toMatchObject({ label: `Revoke key ${prefix}` });
    expect(await works()).toBe(true);

    await page.click(revoke);
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(isOpen).toBe(false);
    expect(await works()).toBe(true);
    expect(await page.textContent('#keys-message')).toBe('');

    await page.click(revoke);
    await dialog().getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.textContent('#keys-message')).toBe(`Key ${prefix}… was revoked.`);
    expect(await works()).toBe(false);
    expect((await keys()).find((k) => k.prefix === prefix)?.status).toBe('revoked');
    // The revoked key's row is left with nothing to press: the page's heading takes the keyboard, not the body.
    await expect.poll(async () => (await focused()).text).toBe('API keys');
  });

  it('removing a webhook endpoint asks: Escape and Cancel keep it, “Remove endpoint” removes it', async () => {
    const url = receiver.url('/confirm');
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/webhooks',
      headers: key(us.apiKey),
      payload: { url, events: ['watchlist.match'] },
    });
    expect(made.statusCode).toBe(201);
    const endpoints = async () => ((await get('/api/v1/external/webhooks')).webhooks as unknown[]).length;
    await page.click('button[data-view="webhooks"]');
    await expect.poll(() => page.textContent('#webhooks-count')).toBe('1 endpoint');
    const remove = `#webhook-rows button[aria-label="Remove ${url}"]`;

    await page.click(remove);
    await expect.poll(isOpen).toBe(true);
    expect(await dialog().getByRole('heading').textContent()).toBe(`Remove the endpoint ‘${url}’?`);
    expect(await focused()).toMatchObject({ text: 'Cancel', inDialog: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(isOpen).toBe(false);
    expect(await focused()).toMatchObject({ label: `Remove ${url}` });
    expect(await endpoints()).toBe(1);

    await page.click(remove);
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(isOpen).toBe(false);
    expect(await endpoints()).toBe(1);

    await page.click(remove);
    await dialog().getByRole('button', { name: 'Remove endpoint' }).click();
    await expect.poll(() => page.textContent('#webhooks-message')).toBe(`${url} removed.`);
    expect(await endpoints()).toBe(0);
    await expect.poll(() => page.textContent('#webhooks-count')).toBe('0 endpoints');
    // No card is left to carry on in: the page's heading takes the keyboard.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  });

  it('removing a person asks: Cancel keeps them, “Remove person” removes them', async () => {
    const colleague = await createUser(t, clock, { companyId: us.companyId }, 'analyst');
    const status = async () =>
      ((await get('/api/v1/external/users')).users as { email: string; status: string }[]).find(
        (u) => u.email === colleague.email,
      )?.status;
    await page.click('button[data-view="team"]');
    const remove = `#team-rows button[aria-label="Remove ${colleague.email}"]`;
    await page.waitForSelector(remove);

    await page.click(remove);
    await expect.poll(isOpen).toBe(true);
    expect(await dialog().getByRole('heading').textContent()).toBe('Remove Ada Obi from the team?');
    expect(await dialog().textContent()).toContain(`${colleague.email} is signed out at once`);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(isOpen).toBe(false);
    expect(await focused()).toMatchObject({ label: `Remove ${colleague.email}` });
    expect(await status()).toBe('active');
    expect(await page.textContent('#team-message')).toBe('');

    await page.click(remove);
    await dialog().getByRole('button', { name: 'Remove person' }).click();
    await expect.poll(() => page.textContent('#team-message')).toBe(`${colleague.email} was removed.`);
    // A removed person is no longer listed by the service.
    expect(await status()).toBeUndefined();
    await expect.poll(() => page.locator(remove).count()).toBe(0);
    // The row left is one's own, with nothing to press: the page's heading takes the keyboard, not the body.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Team');
  });

  it('stopping watching asks: Escape keeps the entry, “Stop watching” removes it', async () => {
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/watchlist',
      headers: key(us.apiKey),
      payload: { items: [{ label: 'phone', value: '08031112222', ref: 'CUST-9' }] },
    });
    expect(added.statusCode).toBeLessThan(300);
    await page.click('button[data-view="search"]');
    await page.click('button[data-view="watchlist"]');
    await expect.poll(() => page.locator('#watch-list li').count()).toBe(1);
    await page.click('#watch-list button');
    await expect.poll(isOpen).toBe(true);
    expect(await dialog().textContent()).toContain('its reference CUST-9 is forgotten');
    await page.keyboard.press('Escape');
    await expect.poll(isOpen).toBe(false);
    expect((await get('/api/v1/external/watchlist?page=1&limit=20')).meta.total).toBe(1);
    await page.click('#watch-list button');
    await dialog().getByRole('button', { name: 'Stop watching' }).click();
    await expect.poll(() => page.textContent('#watch-list-message')).toContain('is no longer watched');
    expect((await get('/api/v1/external/watchlist?page=1&limit=20')).meta.total).toBe(0);
  });

  it('an entry whose value cannot be opened is named by its kind and reference, and can still be removed', async () => {
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/watchlist',
      headers: key(us.apiKey),
      payload: {
        items: [
          { label: 'phone', value: '08031113333', ref: 'CUST-10' },
          { label: 'email', value: 'ada.obi@example.com' },
        ],
      },
    });
    const [broken, other] = added.json().data.results as { id: string }[];
    // The e-mail entry's value token moved onto the phone entry: authentic, but sealed to another row.
    await sql`update watchlist_entries set value_token = (select value_token from watchlist_entries where id = ${other?.id}::uuid)
      where id = ${broken?.id}::uuid`.execute(t.database.db);
    await page.click('button[data-view="search"]');
    await page.click('button[data-view="watchlist"]');
    await expect.poll(() => page.locator('#watch-list li').count()).toBe(2);
    const listed = await page.textContent('#watch-list');
    expect(listed).toContain('A watched phone number (CUST-10): it could not be opened, and the operators are told.');
    expect(listed).toContain('ada.obi@example.com');
    expect(listed).not.toContain('v2.k');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Stop watching the phone number of CUST-10' }).click();
    expect(await dialog().getByRole('heading').textContent()).toBe('Stop watching the phone number of CUST-10?');
    await dialog().getByRole('button', { name: 'Stop watching' }).click();
    await expect.poll(() => page.textContent('#watch-list-message')).toBe('The phone number of CUST-10 is no longer watched.');
    expect((await get('/api/v1/external/watchlist?page=1&limit=20')).meta.total).toBe(1);
  });
});
