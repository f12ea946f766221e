import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createSavedQuery } from '../../src/admin/saved-queries.js';
import { mintToken, revokeToken } from '../../src/admin/tokens.js';
import {
  launchBrowser,
  onOneStore,
  signIn,
  signedInAlready,
  skipWithoutChromium,
  type TestBrowser,
} from '../support/browser.js';
import { ALL_SCOPES, AS_OF, DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';
import { assertMoneyTrue, downloadCsv, drawnIn, text, type Answer } from './drawn.js';
import { assertAccessible } from '../support/accessibility.js';

/**
 * The dashboard as a program manager uses it (issue 22), in headless Chromium against a live
 * server on the tiny seed with today at the seed's day (the server's clock and the browser's):
 * money in its own currency everywhere, names in place of keys, one period for every tile with
 * the previous period beside it, a click into the explorer, CSV, incomplete periods marked, and
 * a revoked token back at sign-in. The tests of tiles drawn from what a store holds (every tile,
 * money split by currency, one period for all) run on both stores; the page's own behaviour
 * beyond them on the first (`onOneStore`): the API answers both stores alike.
 */
const NOON = new Date(`${AS_OF}T12:00:00.000Z`);
/** The server's clock: NOON, moved on by the test of an expired token and back. */
let serverNow = NOON;
const DASHBOARD = 'program-operations';
const LONG_ID = `d${'x'.repeat(62)}z`;

for (const dialect of DIALECTS)
  describe(
    `the dashboard, for people who run the program (${dialect})`,
    { skip: skipWithoutChromium() },
    () => {
      let h: Harness;
      let base: string;
      let browser: TestBrowser;
      let catalog: { dimensions: { key: string; label: string }[] };
      const itOnOneStore = onOneStore(dialect);
      before(async () => {
        h = await startHarness({ dialect, now: () => serverNow });
        const tile = (dashboardId: string, name: string, query: object) =>
          createSavedQuery(
            h.store,
            {
              workspaceId: WS,
              kind: 'dashboard_tile',
              name,
              definition: { query } as never,
              dashboardId,
              author: 'test',
            },
            new Date(),
          );
        // Saved the way the seed used to: money with no currency dimension.
        await tile('finance-check', 'Spend by supplier, no currency', {
          metrics: ['spend'],
          dimensions: ['supplier'],
        });
        await tile(LONG_ID, 'A tile on a dashboard with a long id', { metrics: ['worker_count'] });
        base = await h.app.listen({ host: '127.0.0.1', port: 0 });
        browser = await launchBrowser();
        catalog = (await api('GET', '/api/v1/reports/catalog')) as typeof catalog;
      });
      after(async () => {
        await browser?.close();
        await h?.close();
      });

      async function api(method: string, path: string, body?: object, token = h.tokens.staff) {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        });
        return ((await response.json()) as { data: unknown }).data;
      }
      const runSaved = (id: string) =>
        api('POST', '/api/v1/reports/saved-queries/run', { savedQueryId: id }) as Promise<Answer>;
      const runQuery = (body: object) =>
        api('POST', '/api/v1/reports/query', body) as Promise<Answer>;

      async function open(hash: string, width = 1280): Promise<Page> {
        const page = await browser.newPage();
        await page.clock.setFixedTime(NOON);
        await page.setViewportSize({ width, height: 900 });
        await signedInAlready(page, base, h.tokens.staff, hash);
        // Not the home page: the page asked for is drawn.
        await page.waitForFunction(() => !document.querySelector('main .home'));
        await settled(page);
        await assertAccessible(page, hash);
        return page;
      }
      async function settled(page: Page): Promise<void> {
        await page.waitForSelector('main h1');
        await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0);
      }
      const tileIds = (page: Page) =>
        page.$$eval('.tile', (tiles) => tiles.map((t) => t.getAttribute('data-saved-query') ?? ''));

      it('lists the dashboard by its title and draws every tile from its saved query, money in its own currency', async () => {
        const page = await browser.newPage();
        await signIn(page, base, h.tokens.staff);
        const card = await page.waitForSelector(`a.card[data-dashboard="${DASHBOARD}"]`);
        assert.match((await card.textContent()) ?? '', /^Program operations/);
        await card.click();
        await settled(page);
        assert.equal(await page.textContent('main h1'), 'Program operations');
        const ids = await tileIds(page);
        assert.ok(ids.length >= 6, `tiles: ${ids.length}`);
        const labels = new Map(catalog.dimensions.map((d) => [d.key, d.label]));
        const kinds = new Set<string>();
        let moneyTiles = 0;
        for (const id of ids) {
          const answer = await runSaved(id);
          const drawn = await drawnIn(page, `[data-saved-query="${id}"]`);
          kinds.add(drawn.kind ?? '');
          assert.equal(drawn.rows.length, answer.rows.length, `${id}: a table row per answer row`);
          // Headings people read: the catalog's labels, never a dimension's key.
          for (const column of answer.columns.filter((c) => labels.has(c)))
            assert.ok(
              drawn.headers.includes(labels.get(column) as string),
              `${id}: heading for ${column}`,
            );
          for (const header of drawn.headers)
            assert.ok(!/^[a-z]+_[a-z_]+$/.test(header), `${id}: ${header}`);
          if (answer.metricDefinitions.some((m) => m.unit === 'cents')) moneyTiles++;
          assertMoneyTrue(drawn, answer, id);
        }
        assert.ok(moneyTiles >= 2, 'money tiles were checked');
        // Figures past 2^53 come as numeric strings, which the page hands to Intl as they are:
        // the browser formats them digit for digit (page-logic.test.ts checks the page's code).
        const exact = await page.evaluate(() =>
          new Intl.NumberFormat('en').format('9007199254740993' as never),
        );
        assert.equal(exact, '9,007,199,254,740,993');
        for (const kind of ['time', 'category', 'number']) assert.ok(kinds.has(kind), kind);
      });

      it('splits a money query saved without currency by currency, and never shows a mixed sum', async () => {
        const page = await open('#/dashboard/finance-check');
        const [id] = await tileIds(page);
        const drawn = await drawnIn(page, `[data-saved-query="${id}"]`);
        const split = await runQuery({
          query: { metrics: ['spend'], dimensions: ['supplier', 'currency'], limit: 400 },
        });
        assert.ok(
          new Set(split.rows.map((r) => r.currency)).size > 1,
          'the seed has several currencies',
        );
        assertMoneyTrue(drawn, split, id);
        assert.deepEqual(
          new Set(drawn.charts.map((c) => c.currency)),
          new Set(split.rows.map((r) => r.currency)),
          'one chart per currency',
        );
        // The same query run as saved, from the explorer's address: amounts not shown, and said why.
        const body = { query: { metrics: ['spend'], dimensions: ['supplier'] } };
        await page.goto(`${base}/app#/explorer/${encodeURIComponent(JSON.stringify(body))}`);
        await page.waitForSelector('.explorer-result .result');
        const result = await drawnIn(page, '.explorer-result');
        if (!result.headers.includes('Currency')) {
          assert.ok(result.rows.length > 0);
          for (const row of result.rows)
            assert.equal(row[row.length - 1], 'not shown: mixed currencies');
          assert.equal(result.charts.length, 0, 'no chart of mixed amounts');
        } else
          assertMoneyTrue(
            result,
            await runQuery({ query: { metrics: ['spend'], dimensions: ['supplier', 'currency'] } }),
            'explorer',
          );
      });

      itOnOneStore(
        'shows suppliers by name beside their codes, and ratios as percentages on axis and table',
        async () => {
          const page = await open(`#/dashboard/${DASHBOARD}`);
          const suppliers = (await api('GET', '/api/v1/suppliers?limit=50')) as {
            items: { code: { value: string }; name: { value: string } }[];
          };
          const names = new Map(suppliers.items.map((s) => [s.code.value, s.name.value]));
          const ids = await tileIds(page);
          let supplierRows = 0;
          let ratioTiles = 0;
          for (const id of ids) {
            const answer = await runSaved(id);
            const drawn = await drawnIn(page, `[data-saved-query="${id}"]`);
            if (answer.columns.includes('supplier')) {
              const at = drawn.headers.indexOf('Supplier');
              answer.rows.forEach((row, i) => {
                const code = text(row.supplier);
                assert.equal(drawn.rows[i][at], `${code} ${names.get(code)}`);
                supplierRows++;
              });
              assert.ok(drawn.charts[0].labels.every((label) => names.has(label.split(' ')[0])));
              // Every bar has its label drawn (rotated if need be), none skipped.
              assert.equal(drawn.charts[0].xTicks, drawn.charts[0].labels.length);
            }
            const ratio = answer.metricDefinitions.find((m) => m.unit === 'ratio');
            if (ratio) {
              ratioTiles++;
              for (const tick of drawn.charts[0].yTicks)
                assert.match(tick, /%$/, `${id}: axis ${tick}`);
              const at = drawn.headers.indexOf(ratio.label);
              answer.rows.forEach((row, i) => {
                const percent = `${Math.round(Number(row[ratio.key]) * 1000) / 10}%`;
                assert.equal(drawn.rows[i][at], percent, `${id} row ${i}`);
              });
            }
          }
          assert.ok(
            supplierRows > 0 && ratioTiles > 0,
            `${supplierRows} supplier rows, ${ratioTiles} ratio tiles`,
          );
        },
      );

      itOnOneStore(
        'says "not found" for an unknown dashboard, and wraps a long id at 375 px',
        async () => {
          const page = await open('#/dashboard/no-such-dashboard');
          assert.equal(await page.textContent('main h1'), 'Dashboard not found');
          assert.match((await page.textContent('main')) ?? '', /no-such-dashboard/);
          const phone = await open(`#/dashboard/${LONG_ID}`, 375);
          await phone.waitForSelector('.tile .result');
          assert.equal(
            (await phone.textContent('main h1'))?.replace(/\s/g, ''),
            LONG_ID.replace(/^./, 'D'),
          );
          const width = await phone.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(width <= 375, `no sideways scrolling at 375 px (${width})`);
        },
      );

      it('applies one period to every tile and shows the previous period beside each figure', async () => {
        const page = await open(`#/dashboard/${DASHBOARD}`);
        await page.selectOption('#dash-period', 'quarter:-1');
        await page.check('#dash-compare');
        await page.click('.dashboard-controls button[type=submit]');
        await page.waitForFunction(() => location.hash.includes('compare=1'));
        await settled(page);
        await page.waitForFunction(() => document.querySelectorAll('.tile .result').length >= 6);
        assert.match(page.url(), /period=quarter%3A-1&compare=1|period=quarter:-1&compare=1/);
        const metas = await page.$$eval('.tile .meta', (nodes) =>
          nodes.map((n) => n.textContent ?? ''),
        );
        assert.ok(metas.length >= 6);
        for (const meta of metas)
          assert.match(
            meta,
            /^2026-01-01 to 2026-03-31 \([^)]+\) · previous period 2025-10-01 to 2025-12-31/,
          );
        // The Workers tile: its figure and the previous quarter's, each the API's own answer.
        const [now, then] = await Promise.all(
          [
            { from: '2026-01-01', to: '2026-03-31' },
            { from: '2025-10-01', to: '2025-12-31' },
          ].map((timeRange) => runQuery({ query: { metrics: ['worker_count'], timeRange } })),
        );
        const figure = await page.textContent('.big-number[data-metric="worker_count"]');
        assert.match(figure ?? '', new RegExp(`^${now.rows[0].worker_count}Workers`));
        assert.match(figure ?? '', new RegExp(`Previous period: ${then.rows[0].worker_count} · `));
        // Tables carry the previous figure and the change beside each metric.
        const drawn = await drawnIn(page, '.tile:has(h2 :text("Hours worked by supplier"))');
        assert.deepEqual(drawn.headers.slice(1), [
          'Hours worked',
          'Hours worked, previous period',
          'Change',
        ]);
        assert.ok(drawn.charts[0].series.some((s) => s.label === 'Previous period'));
      });

      itOnOneStore(
        "sets each money figure beside the same currency's previous figure",
        async () => {
          const page = await open(`#/dashboard/${DASHBOARD}?period=quarter:-1&compare=1`);
          await page.waitForFunction(() => document.querySelectorAll('.tile .result').length >= 6);
          const tile = '.tile:has(h2 :text("Invoices by status"))';
          const query = {
            metrics: ['invoice_count', 'invoiced_total'],
            dimensions: ['invoice_status', 'currency'],
          };
          const [now, then] = await Promise.all(
            [
              { from: '2026-01-01', to: '2026-03-31' },
              { from: '2025-10-01', to: '2025-12-31' },
            ].map((timeRange) => runQuery({ query: { ...query, timeRange } })),
          );
          const drawn = await drawnIn(page, tile);
          assertMoneyTrue(drawn, now, 'invoices by status, last quarter');
          const at = drawn.headers.indexOf(
            'Invoiced total (issued and pushed invoices), previous period',
          );
          assert.ok(at > 0, drawn.headers.join(' | '));
          const key = (row: Record<string, unknown>) =>
            `${text(row.invoice_status)} ${text(row.currency)}`;
          const before = new Map(then.rows.map((row) => [key(row), row]));
          now.rows.forEach((row, i) => {
            const earlier = before.get(key(row));
            const expected = earlier
              ? new Intl.NumberFormat('en', {
                  style: 'currency',
                  currency: String(row.currency),
                  currencyDisplay: 'code',
                }).format(Number(earlier.invoiced_total) / 100)
              : '—';
            assert.equal(
              drawn.rows[i][at],
              expected,
              `${key(row)}: the previous quarter's, same currency`,
            );
          });
          // The grey bars of each currency's chart are that currency's previous amounts.
          for (const chart of drawn.charts) {
            const grey = chart.series.find((s) => s.previous);
            assert.ok(grey, `${chart.currency}: a previous-period series`);
            const amounts = then.rows
              .filter((row) => row.currency === chart.currency)
              .map((row) => Number(row.invoiced_total) / 100);
            for (const value of grey.data) if (value !== null) assert.ok(amounts.includes(value));
          }
        },
      );

      itOnOneStore(
        'compares a period not over yet with the same days of the one before, and says so',
        async () => {
          // Today is 2026-06-30: this month so far is 30 days, set against 1 to 30 May.
          const page = await open(`#/dashboard/${DASHBOARD}?period=month:0&compare=1`);
          await page.waitForFunction(() => document.querySelectorAll('.tile .result').length >= 6);
          const metas = await page.$$eval('.tile .meta', (nodes) =>
            nodes.map((n) => n.textContent ?? ''),
          );
          for (const meta of metas)
            assert.match(
              meta,
              /^2026-06-01 to 2026-06-30 \([^)]+\) incomplete: not over yet · previous period 2026-05-01 to 2026-05-30/,
            );
          const [now, then] = await Promise.all(
            [
              { from: '2026-06-01', to: '2026-06-30' },
              { from: '2026-05-01', to: '2026-05-30' },
            ].map((timeRange) =>
              runQuery({
                query: { metrics: ['hours_worked'], dimensions: ['supplier'], timeRange },
              }),
            ),
          );
          const drawn = await drawnIn(page, '.tile:has(h2 :text("Hours worked by supplier"))');
          const at = drawn.headers.indexOf('Hours worked, previous period');
          const before = new Map(then.rows.map((row) => [text(row.supplier), row]));
          assert.equal(drawn.rows.length, now.rows.length);
          now.rows.forEach((row, i) => {
            const earlier = before.get(text(row.supplier));
            const expected = earlier
              ? new Intl.NumberFormat('en', { maximumFractionDigits: 1 }).format(
                  Number(earlier.hours_worked),
                )
              : '—';
            assert.equal(drawn.rows[i][at], expected, text(row.supplier));
          });
          // No worker started this month: the tile says so, and what the previous period had.
          const workers = await runQuery({
            query: {
              metrics: ['worker_count'],
              timeRange: { from: '2026-05-01', to: '2026-05-30' },
            },
          });
          const empty = await page.textContent('.tile:has(h2 :text("Workers")) .empty');
          assert.equal(
            empty,
            `No rows for this query in this period; the previous period has ${workers.rows.length}.`,
          );
        },
      );

      itOnOneStore('takes two dates for every tile, and refuses them backwards', async () => {
        const page = await open(`#/dashboard/${DASHBOARD}`);
        await page.selectOption('#dash-period', 'range');
        assert.ok(await page.isVisible('#dash-from'));
        await page.fill('#dash-from', '2026-03-31');
        await page.fill('#dash-to', '2026-02-01');
        await page.click('.dashboard-controls button[type=submit]');
        assert.match(
          (await page.textContent('.dashboard-controls [role=alert]')) ?? '',
          /first on or before/,
        );
        await page.fill('#dash-from', '2026-02-01');
        await page.fill('#dash-to', '2026-03-31');
        await page.click('.dashboard-controls button[type=submit]');
        await page.waitForFunction(() => location.hash.includes('range'));
        await settled(page);
        await page.waitForFunction(() => document.querySelectorAll('.tile .result').length >= 6);
        const metas = await page.$$eval('.tile .meta', (nodes) =>
          nodes.map((n) => n.textContent ?? ''),
        );
        for (const meta of metas) assert.match(meta, /^2026-02-01 to 2026-03-31 /);
        const workers = await runQuery({
          query: { metrics: ['worker_count'], timeRange: { from: '2026-02-01', to: '2026-03-31' } },
        });
        assert.match(
          (await page.textContent('.big-number[data-metric="worker_count"]')) ?? '',
          new RegExp(`^${workers.rows[0]?.worker_count ?? '—'}Workers`),
        );
      });

      itOnOneStore(
        'opens the explorer on a clicked point: its bucket, and its currency',
        async () => {
          const page = await open(`#/dashboard/${DASHBOARD}`);
          const chart = '.tile:has(h2 :text("דוח")) [data-currency="EUR"] canvas';
          await page.locator(chart).scrollIntoViewIfNeeded();
          const point = await page.$eval(chart, (canvas) => {
            type Point = { x: number; y: number };
            const instance = (
              canvas as HTMLCanvasElement & {
                vmsChart: {
                  getDatasetMeta(i: number): { data: Point[] };
                  data: { labels: string[] };
                };
              }
            ).vmsChart;
            const first = instance.getDatasetMeta(0).data[0];
            const box = canvas.getBoundingClientRect();
            return { x: box.left + first.x, y: box.top + first.y, label: instance.data.labels[0] };
          });
          await page.mouse.click(point.x, point.y);
          await page.waitForFunction(() => location.hash.startsWith('#/explorer/'));
          const body = JSON.parse(
            decodeURIComponent(new URL(page.url()).hash.slice('#/explorer/'.length)),
          );
          assert.equal(point.label, 'Jan 2026');
          assert.deepEqual(body.query.filters, [
            {
              dimension: 'invoice_period',
              operator: 'between',
              values: ['2026-01-01', '2026-01-31'],
            },
            { dimension: 'currency', operator: 'eq', values: ['EUR'] },
          ]);
          await page.waitForSelector('.explorer-result .result');
          const drawn = await drawnIn(page, '.explorer-result');
          assert.ok(drawn.rows.length >= 1 && drawn.rows.every((row) => row.includes('EUR')));
        },
      );

      itOnOneStore('writes the currency a filter fixed into the CSV', async () => {
        const body = {
          query: {
            metrics: ['spend'],
            dimensions: ['supplier'],
            filters: [{ dimension: 'currency', operator: 'eq', values: ['GBP'] }],
          },
        };
        const page = await open(`#/explorer/${encodeURIComponent(JSON.stringify(body))}`);
        await page.waitForSelector('.explorer-result .result table');
        const { lines: csv } = await downloadCsv(
          page,
          '.explorer-result button:text("Download CSV")',
        );
        assert.equal(csv[0], 'Supplier,Spend,Currency');
        const answer = await runQuery(body);
        assert.equal(csv.length, answer.rows.length + 1);
        for (const line of csv.slice(1)) assert.match(line, /,GBP$/);
      });

      itOnOneStore('marks incomplete periods on the chart and in the table', async () => {
        const page = await open(`#/dashboard/${DASHBOARD}`);
        const tile = '.tile:has(h2 :text("entries per week"))';
        const answer = await runSaved(
          (await page.getAttribute(tile, 'data-saved-query')) as string,
        );
        // This quarter from 2026-04-01: its first week began on 2026-03-30, before the range.
        assert.equal(answer.semanticQuery.timeRange?.from, '2026-04-01');
        const drawn = await drawnIn(page, tile);
        assert.match(drawn.rows[0][0], /^week of 2026-03-30 \(incomplete\)$/);
        assert.match(drawn.rows[1][0], /^week of 2026-04-06$/);
        // The last week holds today (2026-06-30): not over yet.
        assert.match(drawn.rows[drawn.rows.length - 1][0], /\(incomplete\)$/);
        assert.ok(await page.isVisible(`${tile} .chart-note`));
        const marks = await page.$eval(`${tile} canvas`, (canvas) => {
          type Instance = { scales: { x: { ticks: { label: unknown }[] } } };
          return (canvas as HTMLCanvasElement & { vmsChart: Instance }).vmsChart.scales.x.ticks.map(
            (t) => String(t.label).endsWith('*'),
          );
        });
        assert.equal(marks[0], true);
        assert.equal(marks[1], false);
      });

      itOnOneStore(
        'opens the explorer on a clicked bar, with that filter, and offers every tile in the explorer',
        async () => {
          const page = await open(`#/dashboard/${DASHBOARD}`);
          const tile = '.tile:has(h2 :text("Hours worked by supplier"))';
          assert.ok(await page.isVisible(`${tile} a:text("Open in explorer")`));
          const answer = await runSaved(
            (await page.getAttribute(tile, 'data-saved-query')) as string,
          );
          await page.locator(`${tile} canvas`).scrollIntoViewIfNeeded();
          const point = await page.$eval(`${tile} canvas`, (canvas) => {
            type Bar = { x: number; y: number; base: number };
            const chart = (
              canvas as HTMLCanvasElement & {
                vmsChart: { getDatasetMeta(i: number): { data: Bar[] } };
              }
            ).vmsChart;
            const bar = chart.getDatasetMeta(0).data[0];
            const box = canvas.getBoundingClientRect();
            return { x: box.left + bar.x, y: box.top + (bar.y + bar.base) / 2 };
          });
          await page.mouse.click(point.x, point.y);
          await page.waitForFunction(() => location.hash.startsWith('#/explorer/'));
          const body = JSON.parse(
            decodeURIComponent(new URL(page.url()).hash.slice('#/explorer/'.length)),
          );
          assert.deepEqual(body.query.filters, [
            { dimension: 'supplier', operator: 'eq', values: [text(answer.rows[0].supplier)] },
          ]);
          await page.waitForSelector('.explorer-result .result');
          const drawn = await drawnIn(page, '.explorer-result');
          assert.equal(
            drawn.rows.length,
            1,
            'the explorer ran the query narrowed to that supplier',
          );
        },
      );

      itOnOneStore('downloads any table as CSV, the rows the table shows', async () => {
        const page = await open(`#/dashboard/${DASHBOARD}`);
        const tile = '.tile:has(h2 :text("Invoices by status"))';
        const answer = await runSaved(
          (await page.getAttribute(tile, 'data-saved-query')) as string,
        );
        const { name, lines: csv } = await downloadCsv(page, `${tile} button:text("Download CSV")`);
        assert.equal(name, 'Invoices-by-status.csv');
        assert.equal(
          csv[0],
          'Invoice status,Currency,Invoices and credit notes (any status),Invoiced total (issued and pushed invoices)',
        );
        assert.equal(csv.length, answer.rows.length + 1);
        answer.rows.forEach((row, i) => {
          assert.equal(
            csv[i + 1],
            [
              row.invoice_status,
              row.currency,
              Number(row.invoice_count),
              Number(row.invoiced_total) / 100,
            ].join(','),
          );
        });
      });

      itOnOneStore(
        'returns to sign-in with a plain message and forgets the token once it is revoked',
        async () => {
          const token = await mintToken(
            h.store,
            { workspaceId: WS, role: 'staff', scopes: ALL_SCOPES },
            new Date(),
          );
          const page = await browser.newPage();
          await signIn(page, base, token);
          await page.waitForSelector('a.card');
          await revokeToken(h.store, token, new Date());
          await page.click(`a.card[data-dashboard="${DASHBOARD}"]`);
          const alert = await page.waitForSelector('form.sign-in [role=alert]');
          assert.match((await alert.textContent()) ?? '', /session has ended.*revoked or expired/i);
          assert.equal(await page.evaluate(() => sessionStorage.getItem('vms-read-token')), null);
          assert.ok(await page.isHidden('#sign-out'));
          // A navigation that follows (a person clicking on, a view still loading) keeps saying why,
          // until someone signs in again.
          await page.evaluate(() => (location.hash = '#/records/workers'));
          await page.waitForFunction(() => location.hash === '#/records/workers');
          const still = await page.waitForSelector('form.sign-in [role=alert]');
          assert.match((await still.textContent()) ?? '', /session has ended/i);
          await page.fill('#token', h.tokens.staff);
          await page.click('form.sign-in button[type=submit]');
          await page.waitForSelector('.record-list');
          assert.equal(await page.locator('[role=alert]').count(), 0);
        },
      );

      itOnOneStore('returns to sign-in the same way once the token has expired', async () => {
        const expiresAt = new Date(NOON.getTime() + 60_000).toISOString();
        const token = await mintToken(
          h.store,
          { workspaceId: WS, role: 'staff', scopes: ALL_SCOPES, expiresAt },
          NOON,
        );
        const page = await browser.newPage();
        await signIn(page, base, token);
        await page.waitForSelector('a.card');
        serverNow = new Date(NOON.getTime() + 120_000);
        try {
          await page.click(`a.card[data-dashboard="${DASHBOARD}"]`);
          const alert = await page.waitForSelector('form.sign-in [role=alert]');
          assert.match((await alert.textContent()) ?? '', /session has ended/i);
          assert.equal(await page.evaluate(() => sessionStorage.getItem('vms-read-token')), null);
        } finally {
          serverNow = NOON;
        }
      });

      itOnOneStore(
        'keeps a wrong token at sign-in with the service message, never "session ended"',
        async () => {
          const page = await browser.newPage();
          await page.goto(`${base}/app`);
          await page.fill('#token', 'vmsr_not_a_token');
          await page.click('form.sign-in button[type=submit]');
          await page.waitForSelector('[role=alert]');
          // Every call of the sign-in has answered: a second alert would be on the page by now.
          await page.waitForLoadState('networkidle');
          const alerts = await page.$$eval('[role=alert]', (nodes) =>
            nodes.map((n) => n.textContent),
          );
          assert.equal(alerts.length, 1);
          assert.match(alerts[0] ?? '', /^401 unauthorized/);
        },
      );
    },
  );
