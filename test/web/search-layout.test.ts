/**
 * The records search laid out for the screen (issue 47), in Chromium: at 1280 px the widest
 * search (the invoices') takes two rows at most, each field as wide as what it holds (an
 * invoice number shows whole, the order is not a row of its own); at 375 px a search that ran folds to one line of what it searched
 * for with "Change", so the results start on the first screen, and "Change" brings the form back.
 * SQLite only: what is measured is the page's layout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/accessibility.js';
import { signedInAlready, skipWithoutChromium } from '../support/browser.js';
import { WS } from '../support/harness.js';
import { livePages, open } from './record-pages.js';

describe('the records search fits the screen (sqlite)', { skip: skipWithoutChromium() }, () => {
  const live = livePages('sqlite');

  async function at(width: number, height = 900): Promise<Page> {
    const page = await live.browser.newPage();
    await page.setViewportSize({ width, height });
    await signedInAlready(page, live.base, live.h.tokens.staff);
    return page;
  }

  it('at 1280 px: two rows at most, fields as wide as what they hold', async () => {
    const page = await at(1280);
    await open(page, '#/records/invoices', '.record-list tbody tr');
    const layout = await page.$eval('.list-search', (form) => {
      const bottoms = [...form.children].map((child) =>
        Math.round(child.getBoundingClientRect().bottom),
      );
      const order = form.querySelector('select[name$=order]')!.getBoundingClientRect().width;
      return { rows: new Set(bottoms).size, order };
    });
    assert.ok(layout.rows <= 2, `the form takes ${layout.rows} rows`);
    assert.ok(layout.order <= 288, `the Order select is ${layout.order} px wide`);
    const number = page.locator('.list-search input[name$=number]');
    await number.fill('BUS-2026-10-00032');
    const fits = await number.evaluate((input) => input.scrollWidth <= input.clientWidth);
    assert.ok(fits, 'an invoice number shows whole');
    await page.close();
  });

  it('at 375 px a search that ran folds to one line with Change; the results are on screen', async () => {
    const page = await at(375, 740);
    const { period_start: from, period_end: to } = await live.h.one<{
      period_start: string;
      period_end: string;
    }>(
      `SELECT period_start, period_end FROM invoices WHERE workspace_id = ? AND status = 'draft'
       ORDER BY id LIMIT 1`,
      WS,
    );
    await open(page, '#/records/invoices', '.record-list tbody tr');
    assert.equal(await page.isVisible('.search-summary'), false, 'not folded before a search');
    await page.selectOption('.list-search select[name$=status]', 'draft');
    await page.fill('.list-search input[name$=from]', from);
    await page.fill('.list-search input[name$=to]', to);
    await page.click('.list-search button[type=submit]');
    await page.waitForSelector('.search-summary');
    await page.waitForSelector('.record-list tbody tr');
    assert.equal(await page.isVisible('.list-search'), false, 'the form folded');
    const words = await page.textContent('.search-summary');
    assert.match(words ?? '', /^Draft · .+ — Change$/);
    const first = await page.$eval('.record-list tbody tr', (row) => ({
      top: row.getBoundingClientRect().top,
      screen: window.innerHeight,
    }));
    assert.ok(first.top < first.screen, `the first result at ${first.top} of ${first.screen} px`);
    await assertAccessible(page, 'a folded search at 375 px');

    await page.click('.search-summary button');
    assert.ok(await page.isVisible('.list-search'), 'Change unfolds the form');
    assert.equal(await page.getAttribute('.search-summary button', 'aria-expanded'), 'true');
    const focused = await page.evaluate(() => document.activeElement?.closest('.list-search'));
    assert.ok(focused, 'the focus is in the form');
    assert.equal(
      await page.$eval('.list-search select[name$=status]', (s) => (s as HTMLSelectElement).value),
      'draft',
      'as it was searched',
    );
    await page.close();
  });
});
