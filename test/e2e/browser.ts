/// <reference lib="dom" />
// Debian's Chromium driven by playwright-core; absent on a fresh machine, where the browser suites skip with one line.
import fs from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { totpCode } from '../../src/modules/users/totp.js';
import { PASSWORD } from '../helpers/people.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`e2e: no Chromium at ${CHROMIUM} (apt-get install chromium); browser tests skipped`);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Without the background-networking flags Chromium stalls on a closed network.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A/AA rules). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** True when nothing on the page is wider than the window (usable at 360 px without sideways scrolling). */
export function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/** Screenshots for the README, written only when asked (`npm run screenshots`), so a test run leaves the tree clean. */
export async function screenshot(page: Page, name: string, options: { fromTop?: boolean; of?: string } = {}): Promise<void> {
  if (process.env.REDFLAG_SCREENSHOTS !== '1') return;
  const path = new URL(`../../docs/screenshots/${name}.png`, import.meta.url).pathname;
  // One part of a long page, whole.
  if (options.of) {
    await page.locator(options.of).screenshot({ path });
    return;
  }
  // A page whose top is the point (a long list below it): the screen as it opens, not the whole page.
  if (options.fromTop) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path, fullPage: false });
    return;
  }
  await page.screenshot({ path, fullPage: true });
}

/** Whether the element is wholly within the screen's height (within a pixel: an edge may fall on a fraction of one). */
export function inSight(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight + 1;
  });
}

/** Moves focus with the Tab key alone until it reaches `selector`. */
export async function tabTo(page: Page, selector: string, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/**
 * A phone-sized page (360 px) in a fresh Chromium, signed in through the desk's form as a person
 * whose second factor is enrolled. Outside a test (in beforeAll): waits on selectors, not expect.poll.
 */
export async function signedInPhonePage(base: string, person: { email: string; secret?: string | undefined }, now: () => Date) {
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 360, height: 780 } })).newPage();
  await page.goto(base);
  await page.fill('#email', person.email);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in-form button[type=submit]');
  await page.waitForSelector('#totp-box', { state: 'visible' });
  await page.fill('#totp', totpCode(person.secret as string, now()));
  await page.click('#sign-in-form button[type=submit]');
  await page.waitForSelector('#view-search', { state: 'visible' });
  return { browser, page };
}
