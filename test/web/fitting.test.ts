import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/accessibility.js';
import { signedInAlready, skipWithoutChromium } from '../support/browser.js';
import { WS } from '../support/harness.js';
import { downloadCsv } from './drawn.js';
import { livePages, open, tableIn } from './record-pages.js';

/**
 * Every view of the page fits 320, 375 and 1280 px (issue 47): nothing scrolls the page sideways,
 * each audited for accessibility at each width. Tables and charts that fit (issue 36), in
 * Chromium at 1280 and 375 px: a wide table keeps its
 * first column in view while it scrolls and says that it scrolls; long third-party text is
 * clipped to one line, whole on hover and focus; a chart's axis draws only the labels that fit.
 * SQLite only: what is measured is the page's layout, the same whichever store answers.
 */
describe('tables and charts fit the width (sqlite)', { skip: skipWithoutChromium() }, () => {
  const live = livePages('sqlite');

  async function at(width: number): Promise<Page> {
    const page = await live.browser.newPage();
    await page.setViewportSize({ width, height: 900 });
    await signedInAlready(page, live.base, live.h.tokens.staff);
    return page;
  }
  const consolidated = () =>
    live.h.one<{ id: string }>(
      `SELECT i.id FROM invoices i WHERE i.workspace_id = ? AND i.grouping_rule = 'consolidated'
       ORDER BY (SELECT COUNT(*) FROM invoice_lines l WHERE l.invoice_id = i.id) DESC LIMIT 1`,
      WS,
    );

  /** Every view a staff member can reach, at its address, with what shows it drawn. */
  async function everyView(): Promise<[string, string][]> {
    const first = (sql: string) => live.h.one<{ id: string }>(sql, WS).then((row) => row.id);
    const worker = await first('SELECT id FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1');
    // A record of each kind as most are (the widest ones are measured below: the audit of a
    // table of hundreds of rows takes seconds a width).
    const timesheet = await first(
      'SELECT id FROM timesheets WHERE workspace_id = ? ORDER BY id LIMIT 1',
    );
    const invoice = await first(
      'SELECT id FROM invoices WHERE workspace_id = ? ORDER BY id LIMIT 1',
    );
    const lists = ['workers', 'timesheets', 'invoices', 'suppliers', 'assignments', 'expenses'];
    return [
      ['#/', 'main .home a.card[data-dashboard]'],
      ['#/records', 'main a.card[data-list]'],
      ...lists.map((list): [string, string] => [`#/records/${list}`, '.record-list tbody tr']),
      [`#/worker/${worker}`, '.record-page'],
      [`#/timesheet/${timesheet}`, '.record-page'],
      [`#/invoice/${invoice}`, '.record-page'],
      ['#/explorer', 'main form'],
      ['#/dashboard/program-operations', '.tile .result'],
      ['#/access-trail', '.record-list .about'],
    ];
  }

  it('every view fits 320, 375 and 1280 px: nothing scrolls the page sideways', async () => {
    // The sign-in card first: the views below are opened signed in already.
    const card = await live.browser.newPage();
    await card.goto(`${live.base}/app`);
    await card.waitForSelector('#token', { state: 'attached' });
    for (const width of [320, 375, 1280]) {
      await card.setViewportSize({ width, height: 800 });
      const wide = await card.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= width, `the sign-in card at ${width} px: the page is ${wide} px wide`);
      await assertAccessible(card, `the sign-in card at ${width} px`);
    }
    const views = await everyView();
    const page = await at(1280);
    for (const width of [320, 375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      for (const [hash, drawn] of views) {
        await page.evaluate((to) => (location.hash = to), hash);
        await page.waitForSelector(drawn);
        await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= width, `${hash} at ${width} px: the page is ${wide} px wide`);
        await assertAccessible(page, `${hash} at ${width} px`);
      }
    }
  });

  /** Where the first column and the region are, with the region scrolled fully right. */
  const scrolledRight = (page: Page, scope: string) =>
    page.$eval(scope, (region) => {
      region.scrollLeft = region.scrollWidth;
      const box = region.getBoundingClientRect();
      const first = region.querySelector('tbody td:first-child')!.getBoundingClientRect();
      const cells = region.querySelectorAll('tbody tr:first-child td');
      const last = cells[cells.length - 1].getBoundingClientRect();
      return {
        wider: region.scrollWidth > region.clientWidth,
        regionLeft: box.left,
        regionRight: box.right,
        firstLeft: first.left,
        lastRight: last.right,
      };
    });

  it('at 375 px a wide table keeps its first column in view and says it scrolls', async () => {
    const page = await at(375);
    const { id } = await consolidated();
    await open(page, `#/invoice/${id}`, '.record-page tbody tr');
    const region = '.record-page .table-wrap';
    const fit = await scrolledRight(page, region);
    assert.ok(fit.wider, 'the lines are wider than the page');
    assert.ok(await page.isVisible('.record-page .scroll-cue'), 'the cue is shown');
    assert.ok(Math.abs(fit.firstLeft - fit.regionLeft) <= 1, JSON.stringify(fit));
    assert.ok(fit.lastRight <= fit.regionRight + 1, 'the last column is reached');
  });

  it("at 1280 px an invoice's eleven line fields fit, paired, and the CSV has a column for each", async () => {
    const page = await at(1280);
    const { id } = await consolidated();
    await open(page, `#/invoice/${id}`, '.record-page tbody tr .worker-name');
    const fit = await scrolledRight(page, '.record-page .table-wrap');
    assert.equal(fit.wider, false, `the lines fit 1280 px: ${JSON.stringify(fit)}`);
    assert.equal(await page.isVisible('.record-page .scroll-cue'), false, 'no cue');
    const fields = [
      'Line',
      'Description',
      'Band',
      'Quantity',
      'Rate × multiplier',
      'Amount',
      'Source currency',
      'Source',
      'Source record',
      'Worker',
      'Org unit',
      'Supplier',
    ];
    const { lines } = await downloadCsv(page, '.record-page button:text("Download CSV")');
    assert.equal(lines[0], fields.join(','));
    const table = await tableIn(page, '.record-page .table-wrap');
    assert.deepEqual(table.headings, fields);
    const first = table.rows[0].cells;
    assert.equal(first.length, fields.length);
    assert.equal(lines[1].split(',').length, fields.length, lines[1]);
    assert.match(first[8], /^ts_/, 'the source record on its own');
    // The worker's name under the id, the supplier's under its code: each line its own.
    const stacked = await page.$eval('.record-page tbody tr:first-child', (row) => {
      const top = (selector: string) => row.querySelector(selector)!.getBoundingClientRect().top;
      return {
        worker: top('.worker-name') > top('a[data-worker]'),
        supplier: top('.supplier-name') > top('[data-supplier]'),
      };
    });
    assert.deepEqual(stacked, { worker: true, supplier: true });
    await open(page, '#/records/suppliers', '.record-list tbody tr');
    assert.equal(await page.isVisible('.record-list .scroll-cue'), false);
  });

  it('at 1280 px long third-party text is clipped to one line, whole on hover and focus', async () => {
    const page = await at(1280);
    const { id } = await consolidated();
    await open(page, `#/invoice/${id}`, '.record-page tbody tr');
    const heights = await page.$$eval('.record-page tbody tr', (rows) =>
      rows.map((r) => r.getBoundingClientRect().height),
    );
    const line = Math.min(...heights);
    assert.ok(
      heights.every((height) => height <= line * 1.5),
      `every line as tall as the others, none wrapped (${Math.max(...heights)} vs ${line})`,
    );
    const clipped = page.locator('.record-page td .third-party[tabindex="0"]').first();
    const whole = (await clipped.textContent()) ?? '';
    assert.equal(await clipped.getAttribute('title'), whole);
    const shown = () => clipped.evaluate((text) => ({ white: getComputedStyle(text).whiteSpace }));
    assert.deepEqual(await shown(), { white: 'nowrap' });
    await clipped.focus();
    assert.deepEqual(await shown(), { white: 'pre-wrap' });
    // Text that fits is neither a title nor a tab stop.
    const fitting = await page.$$eval('.record-page td .third-party:not([tabindex])', (texts) =>
      texts.filter((t) => t.scrollWidth > t.clientWidth + 1 || t.hasAttribute('title')),
    );
    assert.equal(fitting.length, 0);
  });

  it('at 1280 px the invoices list fits: every column in view, none scrolled to (issue 57)', async () => {
    const page = await at(1280);
    await open(page, '#/records/invoices', '.record-list tbody tr .supplier-name');
    const fit = await scrolledRight(page, '.record-list .table-wrap');
    assert.equal(fit.wider, false, JSON.stringify(fit));
    assert.equal(await page.isVisible('.record-list .scroll-cue'), false, 'no cue');
    const { headings } = await tableIn(page, '.record-list');
    assert.deepEqual(headings, [
      'Invoice',
      'Number',
      'Type',
      'Status',
      'Issued',
      'Supplier',
      'Period',
      'Total',
    ]);
  });

  for (const width of [320, 375])
    it(`at ${width} px every chart's axis labels lie inside its figure (issue 57)`, async () => {
      const page = await at(width);
      await open(page, '#/dashboard/program-operations', '.tile canvas');
      await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0);
      // Each drawn label's extent, from where Chart.js anchors it, its angle and its text's width.
      const outside = await page.$$eval('.tile canvas', (canvases) =>
        canvases.flatMap((canvas) => {
          type Item = {
            label: unknown;
            font: { string: string };
            options: { translation: [number, number]; rotation: number; textAlign: string };
          };
          const chart = (
            canvas as HTMLCanvasElement & {
              vmsChart: {
                width: number;
                height: number;
                scales: { x: { getLabelItems(): Item[] } };
              };
            }
          ).vmsChart;
          const context = (canvas as HTMLCanvasElement).getContext('2d')!;
          return chart.scales.x.getLabelItems().flatMap((item) => {
            context.font = item.font.string;
            const text = String(item.label);
            const length = context.measureText(text).width;
            const [x, y] = item.options.translation;
            const turn = -item.options.rotation;
            const align = item.options.textAlign;
            const back = align === 'right' ? 1 : align === 'center' ? 0.5 : 0;
            const left = x - back * length * Math.cos(turn);
            const bottom = y + back * length * Math.sin(turn);
            return left < -0.5 || bottom > chart.height + 0.5
              ? [`${text}: left ${left.toFixed(1)}, bottom ${bottom.toFixed(1)} of ${chart.height}`]
              : [];
          });
        }),
      );
      assert.deepEqual(outside, []);
    });

  for (const width of [375, 1280]) {
    it(`at ${width} px a three-year monthly chart draws only the axis labels that fit`, async () => {
      const page = await at(width);
      const body = {
        query: {
          metrics: ['hours_worked'],
          dimensions: ['work_date'],
          timeGrain: 'month',
          timeRange: { from: '2023-06-01', to: '2026-06-30' },
        },
      };
      await open(
        page,
        `#/explorer/${encodeURIComponent(JSON.stringify(body))}`,
        '.explorer-result .result',
      );
      assert.ok(await page.isVisible('.explorer-result canvas'), await page.innerText('main'));
      const axis = await page.$eval('canvas', (canvas) => {
        type Scale = { ticks: unknown[]; width: number; labelRotation: number };
        const chart = (
          canvas as HTMLCanvasElement & {
            vmsChart: { data: { labels: unknown[] }; scales: { x: Scale } };
          }
        ).vmsChart;
        return {
          labels: chart.data.labels.length,
          drawn: chart.scales.x.ticks.length,
          width: chart.scales.x.width,
          rotation: chart.scales.x.labelRotation,
        };
      });
      assert.ok(axis.labels >= 36, `a month a label over three years: ${axis.labels}`);
      // Rotated labels are a text line each (12 px type, 1.2 line height): that many fit.
      const room = Math.floor(axis.width / 14.4);
      assert.ok(axis.drawn <= room, JSON.stringify({ ...axis, room }));
      if (width === 1280)
        assert.equal(axis.drawn, axis.labels, 'at full width every month is labelled');
      else assert.ok(axis.drawn >= Math.min(room - 2, 12), `thinned, not emptied: ${axis.drawn}`);
    });
  }
});
