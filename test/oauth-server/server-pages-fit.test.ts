/**
 * The built-in authorization server's pages on a phone and a desktop (issue 47), in Chromium at
 * 320, 375 and 1280 px, each with the accessibility audit: the sign-in page (a demo's, with its
 * accounts), the consent page, the signed-out page and an error page keep their card inside the
 * window and nothing scrolls sideways; the product's name in a heading does not break at its
 * hyphen; their buttons are the page's own (one set of styles: web/styles/base.css), the main
 * action filled, the others outlined.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/accessibility.js';
import { launchBrowser, skipWithoutChromium, type TestBrowser } from '../support/browser.js';
import { startHarness, type Harness } from '../support/harness.js';

const WIDTHS = [320, 375, 1280] as const;

/** What makes a button look the way it does. */
const LOOK = ['background-color', 'color', 'border-radius', 'padding', 'font-family'] as const;
const lookOf = (page: Page, selector: string) =>
  page.$eval(
    selector,
    (button, names) => {
      const style = getComputedStyle(button);
      return Object.fromEntries(names.map((name) => [name, style.getPropertyValue(name)]));
    },
    [...LOOK],
  );

/** At each width: the card inside the window, no sideways scroll, nothing serious for axe. */
async function fitsEveryWidth(page: Page, what: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    const fit = await page.evaluate(() => {
      const card = document.querySelector('main')!.getBoundingClientRect();
      const product = document.querySelector('h1 .product');
      return {
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
        left: card.left,
        right: card.right,
        productLines: product ? product.getClientRects().length : 1,
      };
    });
    const at = `${what} at ${width} px: ${JSON.stringify(fit)}`;
    assert.ok(fit.scrollWidth <= fit.clientWidth, `no sideways scroll, ${at}`);
    assert.ok(fit.left >= 0 && fit.right <= fit.clientWidth, `the card inside the window, ${at}`);
    assert.equal(fit.productLines, 1, `"vms-read" on one line, ${at}`);
    await assertAccessible(page, `${what} at ${width} px`);
  }
}

describe(
  "the built-in server's pages fit 320, 375 and 1280 px",
  { skip: skipWithoutChromium() },
  () => {
    let h: Harness;
    let base = '';
    let browser: TestBrowser;
    before(async () => {
      h = await startHarness({
        oauthServer: true,
        demoAccounts: [
          { name: 'staff', label: 'Staff, every scope' },
          { name: 'worker', label: 'A worker' },
        ],
      });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser.close();
      await h.close();
    });

    it('sign-in, consent, signed-out and error pages, with the buttons of the page', async () => {
      const page = await browser.newPage();
      await page.goto(`${base}/app`);
      await page.waitForSelector('#sign-in-oauth');
      const pagePrimary = await lookOf(page, '#sign-in-oauth');

      await page.click('#sign-in-oauth');
      await page.waitForSelector('input[name=key]');
      await fitsEveryWidth(page, 'the sign-in page');
      assert.deepEqual(
        await lookOf(page, 'form:has(input[name=key]) button[type=submit]'),
        pagePrimary,
        "the server's Sign in looks like the page's",
      );
      const demo = await lookOf(page, '.demo button');
      assert.notEqual(demo['background-color'], pagePrimary['background-color'], 'demo: outlined');
      assert.equal(demo.color, pagePrimary['background-color'], 'outlined in the same colour');

      await page.fill('input[name=key]', h.tokens.staff);
      await page.click('button:has-text("Sign in")');
      await page.waitForSelector('button[value=allow]');
      await fitsEveryWidth(page, 'the consent page');
      assert.deepEqual(
        await lookOf(page, 'button[value=allow]'),
        pagePrimary,
        'Allow: the main one',
      );
      assert.equal(
        (await lookOf(page, 'button[value=deny]')).color,
        pagePrimary['background-color'],
        'Deny: outlined',
      );

      await page.goto(`${base}/oauth/end-session/success`);
      await page.waitForSelector('h1:has-text("You are signed out")');
      await fitsEveryWidth(page, 'the signed-out page');

      await page.goto(`${base}/oauth/interaction/no-such-sign-in`);
      await page.waitForSelector('h1:has-text("This sign-in has expired")');
      await fitsEveryWidth(page, 'an error page');
      await page.close();
    });
  },
);
