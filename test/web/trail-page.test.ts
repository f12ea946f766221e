import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { AuditTrail } from '../../src/audit/trail.js';
import { assertAccessible } from '../support/accessibility.js';
import { signedInAlready, skipWithoutChromium } from '../support/browser.js';
import { WS } from '../support/harness.js';
import { livePages, open, tableIn } from './record-pages.js';

/**
 * The access trail as people use it (DESIGN §4.17 "On the page", issue 57), in Chromium with the
 * accessibility audit: a page of 50 events costs at most three requests, the workers' names in
 * one (list_workers' ids, never a get_worker per id); every column fits 1280 px and each event
 * is a card at 375 and 320 px; a counted refusal says how many it counts ("401 ×5"); signed in
 * the normal way (the built-in server's sign-in and consent), a key holding read:audit opens the
 * trail, and the page is not scrolled past its top bar. SQLite: the page is what is measured.
 */
describe("the access trail's page as people use it (sqlite)", { skip: skipWithoutChromium() }, () => {
  const live = livePages('sqlite', { audit: true, oauthServer: true });
  const flush = () => (live.h.executor.deps.answers as AuditTrail).flushAll();
  const drawn = '.record-list[data-address="#/access-trail"] .list-body > *';

  /** Reads that fill a page of the trail with events naming many workers. */
  async function busyTrail(): Promise<void> {
    const read = (path: string) =>
      fetch(`${live.base}${path}`, { headers: { authorization: `Bearer ${live.h.tokens.staff}` } });
    const workers = await live.h.all<{ id: string }>(
      'SELECT id FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 60',
      WS,
    );
    for (const { id } of workers) await read(`/api/v1/workers/item?id=${id}`);
    for (let i = 0; i < 3; i++) await read('/api/v1/workers?limit=50&order=desc');
    await read(`/api/v1/timesheets?workerId=${live.h.workerId}&limit=5`);
    await flush();
  }

  async function signedIn(width: number): Promise<Page> {
    const page = await live.browser.newPage();
    await page.setViewportSize({ width, height: 900 });
    await signedInAlready(page, live.base, live.h.tokens.staff);
    return page;
  }

  it('draws a page of 50 events in at most three requests, the names in one', async () => {
    await busyTrail();
    const page = await signedIn(1280);
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) asked.push(`${url.pathname}${url.search}`);
    });
    await open(page, '#/access-trail', drawn);
    const rows = await page.$$eval('.record-list tbody tr', (r) => r.length);
    assert.equal(rows, 50, 'a full page');
    assert.ok(asked.length <= 3, asked.join('\n'));
    assert.deepEqual(
      asked.filter((path) => path.startsWith('/api/v1/workers/item')),
      [],
      'no get_worker per id',
    );
    const names = asked.filter((path) => path.startsWith('/api/v1/workers?'));
    assert.equal(names.length, 1, asked.join('\n'));
    assert.match(names[0], /[?&]ids=/);
    // Every worker shown is named; those folded under "N more" when opened, in one more request.
    const shown = await page.$$eval(
      '.record-list a[data-worker]',
      (links) => links.filter((l) => !l.closest('details:not([open])')).length,
    );
    assert.ok(shown > 5);
    assert.equal(await page.locator('.record-list a[data-worker] + .worker-name').count(), shown);
    asked.length = 0;
    await page.locator('.record-list details summary').first().click();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.record-list details[open] a[data-worker]')].every(
        (link) => link.nextElementSibling?.classList.contains('worker-name'),
      ),
    );
    assert.ok(asked.length <= 1, asked.join('\n'));
    await page.close();
  });

  it('fits 1280 px: every column in view, none scrolled to', async () => {
    const page = await signedIn(1280);
    await open(page, '#/access-trail', drawn);
    const fit = await page.$eval('.record-list .table-wrap', (region) => ({
      wider: region.scrollWidth > region.clientWidth + 1,
      right: region.getBoundingClientRect().right,
      headings: [...region.querySelectorAll('thead th')].map(
        (th) => th.getBoundingClientRect().right,
      ),
    }));
    assert.equal(fit.wider, false, JSON.stringify(fit));
    assert.ok(
      fit.headings.every((right) => right <= fit.right + 1),
      JSON.stringify(fit),
    );
    assert.equal(await page.isVisible('.record-list .scroll-cue'), false);
    const table = await tableIn(page, '.record-list');
    assert.deepEqual(table.headings, [
      'Answered',
      'Address',
      'Caller',
      'App',
      'Operation',
      'Answer',
      'Records revealed',
      'Personal data',
    ]);
    await page.close();
  });

  for (const width of [320, 375])
    it(`at ${width} px each event is a card, each field under its heading`, async () => {
      const page = await signedIn(width);
      await open(page, '#/access-trail', drawn);
      const cards = await page.$$eval('.record-list tbody tr', (rows) =>
        rows.slice(0, 5).map((row) => ({
          display: getComputedStyle(row).display,
          right: row.getBoundingClientRect().right,
          label: getComputedStyle(row.querySelector('td')!, '::before').content,
        })),
      );
      for (const card of cards) {
        assert.equal(card.display, 'block', JSON.stringify(card));
        assert.ok(card.right <= width, JSON.stringify(card));
        assert.equal(card.label, '"Answered · Address"');
      }
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= width, `the page is ${wide} px wide`);
      await page.close();
    });

  it('shows a counted refusal with its count: "429 ×5"', async () => {
    // A caller's spent quota, counted per caller and minute (the workspace's trail shows it; a
    // 401 has no workspace). Five refusals of the staff key, as the quota's bound answers them.
    const trail = live.h.executor.deps.answers as AuditTrail;
    const principal = await live.h.executor.authenticate(`Bearer ${live.h.tokens.staff}`);
    const at = Date.now();
    for (let i = 0; i < 5; i++)
      trail.answered({
        requestId: `quota-${at}-${i}`,
        at: at + i,
        transport: 'rest',
        address: '127.0.0.1',
        userAgent: null,
        principal,
        operation: null,
        seen: {},
        status: 429,
        code: 'rate_limited',
      });
    await flush();
    const page = await signedIn(1280);
    await open(page, '#/access-trail', drawn);
    const answers = (await tableIn(page, '.record-list')).rows.map((row) => row.cells);
    const counted = answers.find((cells) => /×5$/.test(cells[5]));
    assert.ok(counted, JSON.stringify(answers.map((cells) => cells[5])));
    assert.equal(counted[5], '429 rate limited ×5');
    assert.match(counted[2], /^Staff access key tok_/);
    assert.equal(
      await page.getAttribute(`tr[data-id="quota-${at}-0"] .counted`, 'title'),
      '5 refusals in this minute of this caller',
    );
    await page.close();
  });

  for (const width of [375, 1280])
    it(`signed in the normal way, a key holding read:audit opens the trail; the top bar in view (${width} px)`, async () => {
      const page = await live.browser.newPage();
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${live.base}/app`);
      await page.click('#sign-in-oauth');
      await page.waitForSelector('input[name=key]');
      await page.fill('input[name=key]', live.h.tokens.staff);
      await page.click('button:has-text("Sign in")');
      await page.waitForSelector('button[value=allow]');
      // The consent page names what the page asked for, the trail's scope with the rest.
      assert.match((await page.textContent('main, body')) ?? '', /read:audit/);
      await page.click('button[value=allow]');
      await page.waitForSelector('a.card[data-list="access-trail"]');
      await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0);
      await assertAccessible(page, 'the home page after sign-in');
      assert.equal(await page.evaluate(() => scrollY), 0, 'not scrolled past the top bar');
      const bar = await page.$eval('#sign-out', (b) => b.getBoundingClientRect().top);
      assert.ok(bar >= 0, `Sign out at ${bar}`);
      await page.click('a.card[data-list="access-trail"]');
      await page.waitForSelector(drawn);
      assert.equal(await page.evaluate(() => scrollY), 0);
      await page.close();
    });
});
