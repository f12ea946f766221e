import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  launchBrowser,
  signedInAlready,
  skipWithoutChromium,
  type TestBrowser,
} from '../support/browser.js';
import { AS_OF, startHarness, type Harness } from '../support/harness.js';
import { assertAccessible } from '../support/accessibility.js';

/**
 * The explorer in headless Chromium against a live server on the tiny seed: only compatible
 * choices are offered, a query built with the keyboard draws exactly the API's answer for the
 * same body, "Copy as" holds that body (and never the token), the address re-runs it, a
 * row-budget truncation continues through "Load more", and a refusal is shown.
 */

type Row = Record<string, unknown>;
interface Answer {
  status: string;
  rows: Row[];
  columns: string[];
  nextCursor: string | null;
  truncatedBy: string | null;
  code?: string;
  metricDefinitions: { key: string; unit: string }[];
}
interface CatalogMetric {
  key: string;
  dimensions: string[];
  evaluative: boolean;
}

const text = (value: unknown) =>
  typeof value === 'object' && value !== null
    ? String((value as { value: unknown }).value)
    : String(value);

/** What the result shows: the chart's own data (its Chart.js instance) and the table's cells. */
interface Drawn {
  kind: string | null;
  labels: string[];
  series: { label: string; data: (number | null)[] }[];
  table: string[][];
}

/** The part of a Chart.js instance read here. */
interface ChartData {
  data: { labels: unknown[]; datasets: { label: unknown; data: (number | null)[] }[] };
}

function drawn(page: Page): Promise<Drawn> {
  return page.$eval('.explorer-result', (root) => {
    const canvas = root.querySelector('canvas') as
      (HTMLCanvasElement & { vmsChart?: ChartData }) | null;
    const chart = canvas?.vmsChart;
    return {
      kind: root.querySelector('.result')?.getAttribute('data-chart-kind') ?? null,
      labels: chart ? chart.data.labels.map(String) : [],
      series: chart
        ? chart.data.datasets.map((d) => ({ label: String(d.label), data: [...d.data] }))
        : [],
      table: [...root.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
      ),
    };
  });
}

/** The ids of the metric (or dimension) checkboxes the form offers. */
const offered = (page: Page, kind: 'metric' | 'dimension') =>
  page.$$eval(
    `input[id^="ex-${kind}-"]`,
    (inputs, prefix) => inputs.map((i) => i.id.slice(prefix.length)).sort(),
    `ex-${kind}-`,
  );

/** The values a filter offers (the labels of its radios or checkboxes), once found. */
async function offeredValues(page: Page, index: number): Promise<string[]> {
  await page.waitForSelector(`#ex-filter-${index}-offered fieldset`);
  return page.$$eval(`#ex-filter-${index}-offered input[id*="-value-"]`, (inputs) =>
    inputs
      .filter((i) => !i.id.endsWith('-value-none'))
      .map((i) => document.querySelector(`label[for="${i.id}"]`)?.textContent ?? ''),
  );
}

/** The values of a filter ticked or chosen among those offered. */
const pickedValues = (page: Page, index: number) =>
  page.$$eval(`#ex-filter-${index}-offered input[id*="-value-"]:checked`, (inputs) =>
    inputs
      .filter((i) => !i.id.endsWith('-value-none'))
      .map((i) => document.querySelector(`label[for="${i.id}"]`)?.textContent ?? ''),
  );

/** The id of the input of an offered value, by its label. */
const valueInput = (page: Page, index: number, value: string) =>
  page.$$eval(
    `#ex-filter-${index}-offered input[id*="-value-"]`,
    (inputs, wanted) =>
      inputs.find((i) => document.querySelector(`label[for="${i.id}"]`)?.textContent === wanted)
        ?.id ?? '',
    value,
  );

/** Ticks a checkbox or radio by keyboard: focus it, press Space. */
async function press(page: Page, selector: string, key = 'Space'): Promise<void> {
  await page.focus(selector);
  await page.keyboard.press(key);
}

describe('the explorer in a real browser', { skip: skipWithoutChromium() }, () => {
  let h: Harness;
  let base: string;
  let browser: TestBrowser;
  let catalog: { metrics: CatalogMetric[] };
  before(async () => {
    // Today is the seed's day, so a relative period (last month) has data.
    h = await startHarness({ now: () => new Date(`${AS_OF}T12:00:00.000Z`) });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    catalog = (await get('/api/v1/reports/catalog')) as typeof catalog;
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  const auth = () => ({ authorization: `Bearer ${h.tokens.staff}` });
  async function get(path: string): Promise<unknown> {
    const response = await fetch(`${base}${path}`, { headers: auth() });
    return ((await response.json()) as { data: unknown }).data;
  }
  /** The API's answer to a body, as any client gets it. */
  async function query(body: object): Promise<Answer> {
    const response = await fetch(`${base}/api/v1/reports/query`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Answer }).data;
  }

  /** A signed-in page on the explorer; page errors and console errors (a CSP block) collected. */
  async function explorer(errors: string[]): Promise<Page> {
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`);
    });
    await signedInAlready(page, base, h.tokens.staff);
    await page.click('nav a[href="#/explorer"]');
    await page.waitForSelector('#ex-metric-hours_worked');
    await assertAccessible(page, 'the explorer');
    return page;
  }

  /** The body the explorer ran, as each "Copy as" text holds it. */
  async function copied(page: Page) {
    const curl = await page.inputValue('#copy-curl');
    const mcp = JSON.parse(await page.inputValue('#copy-mcp'));
    const client = await page.inputValue('#copy-client');
    const call = /vms\.call\('run_semantic_query', ([\s\S]*?)\);\n/.exec(client);
    assert.ok(call, client);
    return { curl, mcp, client, clientBody: JSON.parse(call[1]) };
  }

  it('offers only metrics of the first one’s view and the dimensions they allow', async () => {
    const errors: string[] = [];
    const page = await explorer(errors);
    const queryable = catalog.metrics.filter((m) => !m.evaluative).map((m) => m.key);
    assert.ok(queryable.length < catalog.metrics.length, 'the seed has evaluative metrics');
    assert.deepEqual(await offered(page, 'metric'), [...queryable].sort(), 'all but evaluative');
    assert.deepEqual(await offered(page, 'dimension'), [], 'no dimension before a metric');

    await press(page, '#ex-metric-hours_worked');
    const metrics = await offered(page, 'metric');
    assert.ok(!metrics.includes('spend'), 'spend (invoice lines) is not offered');
    assert.ok(metrics.includes('overtime_hours'));
    // The oracle is the server: a metric is offered iff running it beside hours_worked is not
    // refused as mixed_views.
    for (const key of queryable) {
      const pair = key === 'hours_worked' ? [key] : ['hours_worked', key];
      const answer = await query({ query: { metrics: pair, limit: 1 } });
      assert.equal(
        metrics.includes(key),
        answer.status !== 'refused',
        `${key}: offered ${metrics.includes(key)}, answer ${answer.status} ${answer.code ?? ''}`,
      );
    }
    const hours = catalog.metrics.find((m) => m.key === 'hours_worked') as CatalogMetric;
    assert.deepEqual(await offered(page, 'dimension'), [...hours.dimensions].sort());
    assert.equal(await page.locator('#ex-grain').count(), 0, 'no grain without a time dimension');
    await press(page, '#ex-dimension-work_date');
    assert.equal(await page.locator('#ex-grain').count(), 1, 'a grain with work_date');
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      'ex-dimension-work_date',
      'the focus stays on the control used',
    );

    await press(page, '#ex-metric-hours_worked');
    assert.ok((await offered(page, 'metric')).includes('spend'), 'all again once none is chosen');
    assert.deepEqual(await offered(page, 'dimension'), []);
    assert.deepEqual(errors, []);
  });

  it('runs a query built with the keyboard and draws exactly the API’s answer', async () => {
    const errors: string[] = [];
    const page = await explorer(errors);
    const byType = await query({
      query: { metrics: ['hours_worked'], dimensions: ['worker_type'] },
    });
    const workerType = text(byType.rows[0].worker_type);
    await press(page, '#ex-metric-hours_worked');
    await press(page, '#ex-metric-overtime_hours');
    await press(page, '#ex-dimension-work_date');
    await page.focus('#ex-grain');
    await page.selectOption('#ex-grain', 'month');
    // Radios by arrow keys: all time → a period → a quarter → a date range.
    await press(page, '#ex-when-all', 'ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'ex-when-range');
    await page.fill('#ex-from', '2026-01-01');
    await page.fill('#ex-to', '2026-06-30');
    await page.click('#ex-add-filter');
    await page.selectOption('#ex-filter-0-dimension', 'worker_type');
    await page.selectOption('#ex-filter-0-operator', 'in');
    await page.fill('#ex-filter-0-values', ` ${workerType} ,`);
    await page.focus('#ex-filter-0-values');
    await page.keyboard.press('Enter'); // submits the form: Run
    await page.waitForSelector('.explorer-result .result');
    await assertAccessible(page, 'the explorer with a filter and a drawn result');

    const body = {
      query: {
        metrics: ['hours_worked', 'overtime_hours'],
        dimensions: ['work_date'],
        filters: [{ dimension: 'worker_type', operator: 'in', values: [workerType] }],
        timeGrain: 'month',
        timeRange: { from: '2026-01-01', to: '2026-06-30' },
      },
    };
    const texts = await copied(page);
    assert.deepEqual(texts.mcp, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'run_semantic_query', arguments: body },
    });
    assert.deepEqual(texts.clientBody, body);
    assert.match(texts.client, /import \{ createVmsReadClient \} from 'vms-read-client';/);
    assert.ok(texts.client.includes(`baseUrl: "${base}"`), texts.client);
    assert.ok(texts.curl.includes(`'${base}/api/v1/reports/query'`), texts.curl);
    assert.ok(texts.curl.includes(`--data-raw '${JSON.stringify(body)}'`), texts.curl);
    assert.ok(texts.curl.includes('-H "Authorization: Bearer $VMS_TOKEN"'), texts.curl);
    assert.ok(texts.curl.includes(`-H 'Content-Type: application/json'`), texts.curl);
    for (const t of [texts.curl, texts.client, JSON.stringify(texts.mcp)])
      assert.ok(!t.includes(h.tokens.staff), 'the token is never in a copied text');

    const answer = await query(body);
    assert.equal(answer.status, 'ok');
    assert.ok(answer.rows.length >= 2, `months of data: ${answer.rows.length}`);
    const expectDrawn = async () => {
      const shown = await drawn(page);
      assert.equal(shown.kind, 'time');
      const months = answer.rows.map((row) => text(row.work_date));
      // Each month as people name it ("Apr 2026"), as the page labels it.
      const name = (month: string) =>
        new Date(`${month}T00:00:00Z`).toLocaleString('en', {
          month: 'short',
          year: 'numeric',
          timeZone: 'UTC',
        });
      assert.deepEqual(shown.labels, [...months].sort().map(name));
      assert.deepEqual(
        shown.series.map((s) => s.data),
        ['hours_worked', 'overtime_hours'].map((key) =>
          [...months].sort().map((m) => {
            const row = answer.rows.find((r) => text(r.work_date) === m) as Row;
            return row[key] === null ? null : Number(row[key]);
          }),
        ),
      );
      assert.deepEqual(
        shown.table.map((cells) => cells[0]),
        months.map(name),
        'a table row per answer row, in its order',
      );
    };
    await expectDrawn();

    // The address holds the body: reloading (or sharing it) fills the form and runs it again.
    const hash = await page.evaluate(() => location.hash);
    assert.deepEqual(JSON.parse(decodeURIComponent(hash.replace('#/explorer/', ''))), body);
    await page.reload();
    await page.waitForSelector('.explorer-result .result');
    assert.equal(await page.isChecked('#ex-metric-overtime_hours'), true);
    // Read back, the value is picked among those offered (it is one of them), none typed.
    await page.waitForSelector('#ex-filter-0-offered fieldset');
    assert.deepEqual(await pickedValues(page, 0), [workerType]);
    assert.equal(await page.inputValue('#ex-filter-0-values'), '');
    assert.deepEqual((await copied(page)).clientBody, body);
    await expectDrawn();
    assert.deepEqual(errors, []);
  });

  /** The values the API gives for a dimension, as the explorer asks for them. */
  async function valuesOf(metric: string, dimension: string): Promise<string[]> {
    const answer = await query({
      query: {
        metrics: [metric],
        dimensions: [dimension],
        order: [{ key: dimension, direction: 'asc' }],
        limit: 200,
      },
    });
    return answer.rows.filter((row) => row[dimension] !== null).map((row) => text(row[dimension]));
  }

  it('offers the values a dimension has, found once, and runs the one chosen', async () => {
    const errors: string[] = [];
    const page = await explorer(errors);
    // The bodies of the page's report runs (the client sends a Request, whose body the
    // browser's request events do not show), collected from a wrapped fetch.
    await page.addInitScript(() => {
      const seen: string[] = [];
      const fetched = window.fetch.bind(window);
      Object.assign(window, { vmsAsked: seen });
      window.fetch = async (input, init) => {
        if (input instanceof Request && input.url.endsWith('/api/v1/reports/query'))
          seen.push(await input.clone().text());
        return fetched(input, init);
      };
    });
    await page.reload();
    await page.waitForSelector('#ex-metric-invoice_count');
    const asked = () => page.evaluate(() => (window as unknown as { vmsAsked: string[] }).vmsAsked);
    await press(page, '#ex-metric-invoice_count');
    await press(page, '#ex-dimension-invoice_status');
    await page.click('#ex-add-filter');
    await page.selectOption('#ex-filter-0-dimension', 'invoice_status');
    const expected = await valuesOf('invoice_count', 'invoice_status');
    assert.ok(expected.length >= 2, `statuses in the seed: ${expected.join(', ')}`);
    assert.deepEqual(await offeredValues(page, 0), expected, 'exactly the API’s values');
    assert.equal(await page.locator('#ex-filter-0-capped').count(), 0, 'not capped');

    // eq: one value, chosen by keyboard among radios.
    const status = expected[expected.length - 1];
    await press(page, `#${await valueInput(page, 0, status)}`);
    assert.deepEqual(await pickedValues(page, 0), [status]);
    await page.click('#ex-run');
    await page.waitForSelector('.explorer-result .result');
    const body = (await copied(page)).clientBody;
    assert.deepEqual(body.query.filters, [
      { dimension: 'invoice_status', operator: 'eq', values: [status] },
    ]);
    const answer = await query(body);
    assert.equal(answer.status, 'ok');
    assert.ok(answer.rows.every((row) => row.invoice_status === status));
    assert.deepEqual(
      (await drawn(page)).table.map((cells) => cells[0]),
      answer.rows.map(() => status),
      'every row drawn is of that status',
    );

    // in: several values by checkboxes; the values are not asked for again this session.
    await page.selectOption('#ex-filter-0-operator', 'in');
    await press(page, `#${await valueInput(page, 0, expected[0])}`);
    assert.deepEqual(await pickedValues(page, 0), [expected[0], status]);
    await page.click('#ex-filter-0-remove');
    await page.click('#ex-add-filter');
    await page.selectOption('#ex-filter-0-dimension', 'invoice_status');
    assert.deepEqual(await offeredValues(page, 0), expected);
    const listings = (await asked()).filter((b) => b.includes('"limit":200'));
    assert.equal(listings.length, 1, `the statuses asked once: ${listings.join('\n')}`);
    assert.deepEqual(JSON.parse(listings[0]).query, {
      metrics: ['invoice_count'],
      dimensions: ['invoice_status'],
      order: [{ key: 'invoice_status', direction: 'asc' }],
      limit: 200,
    });
    assert.deepEqual(errors, []);
  });

  it('splits money by currency, offers the currency codes, and warns when unsplit', async () => {
    const errors: string[] = [];
    const page = await explorer(errors);
    const money = catalog.metrics.find((m) => m.key === 'spend');
    assert.ok(money && money.dimensions.includes('currency'));
    assert.equal(await page.locator('#ex-split-currency').count(), 0, 'no money, no split');
    await press(page, '#ex-metric-spend');
    assert.equal(await page.isChecked('#ex-split-currency'), true, 'ticked for money');
    assert.equal(await page.isVisible('#ex-currency-warning'), false);
    await press(page, '#ex-split-currency');
    assert.equal(await page.isVisible('#ex-currency-warning'), true, 'unticked: the warning');
    assert.match(
      (await page.textContent('#ex-currency-warning')) ?? '',
      /add different currencies together/,
    );
    await page.click('#ex-run');
    await page.waitForSelector('.explorer-result .result');
    assert.deepEqual((await copied(page)).clientBody, { query: { metrics: ['spend'] } });
    await press(page, '#ex-split-currency');
    assert.equal(await page.isVisible('#ex-currency-warning'), false);

    await page.click('#ex-add-filter');
    await page.selectOption('#ex-filter-0-dimension', 'currency');
    const codes = await valuesOf('spend', 'currency');
    assert.ok(codes.length >= 1 && codes.every((c) => /^[A-Z]{3}$/.test(c)), codes.join(', '));
    assert.deepEqual(await offeredValues(page, 0), codes);
    await press(page, `#${await valueInput(page, 0, codes[0])}`);
    await page.click('#ex-run');
    await page.waitForSelector('.explorer-result .result');
    const body = (await copied(page)).clientBody;
    assert.deepEqual(body, {
      query: {
        metrics: ['spend'],
        dimensions: ['currency'],
        filters: [{ dimension: 'currency', operator: 'eq', values: [codes[0]] }],
      },
    });
    const answer = await query(body);
    assert.equal(answer.status, 'ok', 'eq of a currency offered is not empty');
    assert.deepEqual(
      answer.rows.map((row) => row.currency),
      [codes[0]],
    );

    // An address without currency stays without it, and says so.
    const unsplit = { query: { metrics: ['spend'], dimensions: ['supplier'] } };
    await page.goto(`${base}/app#/explorer/${encodeURIComponent(JSON.stringify(unsplit))}`);
    await page.waitForSelector('.explorer-result .result');
    assert.equal(await page.isChecked('#ex-split-currency'), false);
    assert.equal(await page.isVisible('#ex-currency-warning'), true);
    assert.deepEqual((await copied(page)).clientBody, unsplit);
    // A fresh choice of money ticks it again.
    await press(page, '#ex-metric-spend');
    await press(page, '#ex-metric-spend');
    assert.equal(await page.isChecked('#ex-split-currency'), true);
    assert.deepEqual(errors, []);
  });

  it('takes dates on a time dimension, and says in words why a typed non-date is refused', async () => {
    const errors: string[] = [];
    const page = await explorer(errors);
    await press(page, '#ex-metric-hours_worked');
    await page.click('#ex-add-filter');
    await page.selectOption('#ex-filter-0-dimension', 'work_date');
    await page.selectOption('#ex-filter-0-operator', 'between');
    assert.equal(await page.getAttribute('#ex-filter-0-date-0', 'type'), 'date');
    assert.equal(await page.getAttribute('#ex-filter-0-date-1', 'type'), 'date');
    await page.fill('#ex-filter-0-date-0', '2026-01-01');
    await page.fill('#ex-filter-0-date-1', '2026-03-31');
    await page.click('#ex-run');
    await page.waitForSelector('.explorer-result .result');
    const body = (await copied(page)).clientBody;
    assert.deepEqual(body.query.filters, [
      { dimension: 'work_date', operator: 'between', values: ['2026-01-01', '2026-03-31'] },
    ]);
    assert.equal((await query(body)).status, 'ok');

    await page.selectOption('#ex-filter-0-operator', 'gte');
    await page.fill('#ex-filter-0-date-0', '');
    await page.fill('#ex-filter-0-values', 'abc');
    await page.click('#ex-run');
    await page.waitForSelector('.explorer-result .refusal');
    const refusal = (await page.textContent('.explorer-result .refusal')) ?? '';
    assert.equal(
      await page.textContent('.explorer-result .refusal-words'),
      'A filter’s values do not fit its dimension or its operator: the message below says which filter and why.',
    );
    assert.ok(
      refusal.includes(
        'Filter on work_date (query.filters[0]): values[0] is not a date (YYYY-MM-DD).',
      ),
      refusal,
    );
    const refused = await query((await copied(page)).clientBody);
    assert.equal(refused.code, 'bad_filter');
    assert.deepEqual(errors, []);
  });

  it('continues a row-budget truncation through Load more, as the API pages it', async () => {
    const errors: string[] = [];
    const page = await explorer(errors);
    await press(page, '#ex-metric-hours_worked');
    await press(page, '#ex-dimension-work_date');
    await page.fill('#ex-limit', '700');
    await page.click('#ex-run');
    const more = page.locator('.explorer-result button.more');
    await more.waitFor();
    const body = { query: { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 700 } };
    const first = await query(body);
    assert.equal(first.truncatedBy, 'row_budget');
    assert.equal((await drawn(page)).table.length, first.rows.length);
    await more.click();
    await page.waitForFunction(
      () => document.querySelectorAll('.explorer-result tbody tr').length === 700,
    );
    const second = await query({ ...body, cursor: first.nextCursor });
    assert.deepEqual(
      (await drawn(page)).table.map((cells) => cells[0]),
      [...first.rows, ...second.rows].map((row) => text(row.work_date)),
    );
    assert.deepEqual(errors, []);
  });

  it('sends a calendar period, shows a refusal, and fits a phone’s width', async () => {
    const errors: string[] = [];
    const page = await explorer(errors);
    await page.setViewportSize({ width: 375, height: 740 });
    await press(page, '#ex-metric-hours_worked');
    await press(page, '#ex-when-relative');
    await page.selectOption('#ex-period-unit', 'month');
    await page.selectOption('#ex-period-offset', '-1');
    await page.click('#ex-run');
    await page.waitForSelector('.explorer-result .result');
    const { mcp } = await copied(page);
    const body = {
      query: { metrics: ['hours_worked'] },
      period: { kind: 'relative', unit: 'month', offset: -1 },
    };
    assert.deepEqual(mcp.params.arguments, body);
    assert.match(
      (await page.textContent('.explorer-result .meta')) ?? '',
      /2026-05-01 to 2026-05-31/,
    );
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 375, `no sideways scrolling at 375 px (${width})`);
    await assertAccessible(page, 'the explorer at 375 px');
    assert.equal(
      await page.$eval('.explorer-form fieldset', (f) => getComputedStyle(f).borderTopLeftRadius),
      '6px',
      "the explorer's style sheet applies under the page's CSP",
    );

    // between with one value: the server's bad_filter refusal, shown with its code.
    await page.click('#ex-add-filter');
    await page.selectOption('#ex-filter-0-operator', 'between');
    await page.fill('#ex-filter-0-values', 'only-one');
    await page.click('#ex-run');
    await page.waitForSelector('.explorer-result .refusal');
    assert.match((await page.textContent('.explorer-result .refusal')) ?? '', /bad_filter/);
    assert.equal((await query((await copied(page)).mcp.params.arguments)).code, 'bad_filter');
    assert.deepEqual(errors, []);
  });
});
