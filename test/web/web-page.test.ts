import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createSavedQuery } from '../../src/admin/saved-queries.js';
import {
  launchBrowser,
  signIn,
  skipWithoutChromium,
  type TestBrowser,
} from '../support/browser.js';
import { AS_OF, startHarness, WS, type Harness } from '../support/harness.js';

/**
 * The web page in headless Chromium against a live server on the tiny seed: sign in, the
 * dashboards, every tile drawn from its saved query's answer, and hostile text shown as text.
 */

/** Markup a person could type as a name: shown as text, it runs nothing. */
const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;

type Row = Record<string, unknown>;
interface Answer {
  status: string;
  rows: Row[];
  columns: string[];
  metricDefinitions: { key: string; unit: string }[];
  grain?: string | null;
}
interface Drawn {
  kind: string | null;
  labels: string[];
  series: { label: string; data: (number | null)[] }[];
  tableRows: number;
  bigNumbers: string[];
}

const text = (value: unknown) =>
  typeof value === 'object' && value !== null
    ? String((value as { value: unknown }).value)
    : String(value);
const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');
/** A value as the page labels it: a period by its name, a supplier's code with its name. */
function named(value: string, label: string, grain: string | null | undefined): boolean {
  const [y, m] = value.split('-').map(Number);
  const names: Record<string, string> = {
    month: `${MONTHS[m - 1]} ${y}`,
    quarter: `Q${Math.floor((m - 1) / 3) + 1} ${y}`,
    year: String(y),
    week: `week of ${value}`,
  };
  return label === value || label.startsWith(`${value} `) || label === names[grain ?? ''];
}
const plotted = (unit: string, value: unknown) =>
  value === null ? null : unit === 'cents' ? Number(value) / 100 : Number(value);

/** What one tile drew: the Chart.js instance's own data, the table's rows, the big numbers. */
function drawnIn(page: Page, id: string): Promise<Drawn> {
  return page.$eval(`[data-saved-query="${id}"]`, (tile) => {
    type Drawing = { labels: unknown[]; datasets: { label: unknown; data: (number | null)[] }[] };
    const canvas = tile.querySelector('canvas') as
      (HTMLCanvasElement & { vmsChart?: { data: Drawing } }) | null;
    const chart = canvas?.vmsChart;
    return {
      kind: tile.querySelector('.result')?.getAttribute('data-chart-kind') ?? null,
      labels: chart ? chart.data.labels.map(String) : [],
      series: chart
        ? chart.data.datasets.map((d) => ({ label: String(d.label), data: d.data }))
        : [],
      tableRows: tile.querySelectorAll('tbody tr').length,
      bigNumbers: [...tile.querySelectorAll('.big-number .value')].map((n) => n.textContent ?? ''),
    };
  });
}

/** Every point drawn is a row of the answer: at its label, for its series, with its value. */
function assertDrawnFrom(drawn: Drawn, answer: Answer, id: string): void {
  const metrics = answer.metricDefinitions;
  const dimensions = answer.columns.filter((c) => !metrics.some((m) => m.key === c));
  assert.equal(drawn.tableRows, answer.rows.length, `${id}: a table row per answer row`);
  if (drawn.kind === 'number') {
    assert.equal(dimensions.length, 0);
    assert.equal(drawn.bigNumbers.length, metrics.length, `${id}: a big number per metric`);
    return;
  }
  if (drawn.kind === 'table' || drawn.kind === 'empty') return;
  let points = 0;
  for (const series of drawn.series) {
    series.data.forEach((value, i) => {
      if (value === null) return;
      points++;
      const found = answer.rows.some(
        (row) =>
          dimensions.some((d) => named(text(row[d]), drawn.labels[i], answer.grain)) &&
          metrics.some((m) => plotted(m.unit, row[m.key]) === value),
      );
      assert.ok(found, `${id}: ${series.label} at ${drawn.labels[i]} = ${value} is in the answer`);
    });
  }
  assert.ok(points > 0, `${id}: the chart has points`);
  // (A money answer is drawn a chart per currency: test/web/dashboard.test.ts checks those.)
  if (drawn.kind === 'category' && !answer.columns.includes('currency'))
    assert.deepEqual(
      drawn.labels.map((label) => label.split(' ')[0]),
      answer.rows.map((row) => text(row[dimensions[0]])),
      `${id}: a bar per row`,
    );
}

describe('the web page in a real browser', { skip: skipWithoutChromium() }, () => {
  let h: Harness;
  let base: string;
  let browser: TestBrowser;
  let hostileId: string;
  before(async () => {
    // Today is the seed's day, so relative periods (this quarter, last month) have data.
    h = await startHarness({ now: () => new Date(`${AS_OF}T12:00:00.000Z`) });
    hostileId = await createSavedQuery(
      h.store,
      {
        workspaceId: WS,
        kind: 'library',
        name: HOSTILE,
        definition: { query: { metrics: ['invoice_count'] } },
        dashboardId: null,
        author: 'test',
      },
      new Date(),
    );
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  const api = async (body: object) => {
    const response = await fetch(`${base}/api/v1/reports/saved-queries/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.tokens.staff}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return ((await response.json()) as { data: Answer }).data;
  };

  it('is served at / and /app under a CSP with no inline script', async () => {
    for (const path of ['/', '/app']) {
      const response = await fetch(`${base}${path}`);
      assert.equal(response.status, 200);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(await response.text(), /<script>|<style>| style=/);
    }
  });

  it('has an icon at /favicon.ico, the one the page links, so no page logs a 404 for it', async () => {
    const icon = await fetch(`${base}/favicon.ico`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    const svg = await icon.text();
    assert.match(svg, /^<svg /);
    const linked = await fetch(`${base}/app/assets/favicon.svg`);
    assert.equal(linked.status, 200);
    assert.equal(await linked.text(), svg);
    const page = await browser.newPage();
    try {
      const missing: string[] = [];
      page.on('response', (r) => {
        if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`);
      });
      await page.goto(`${base}/app`);
      await page.waitForLoadState('networkidle');
      assert.deepEqual(missing, []);
    } finally {
      await page.close();
    }
  });

  it('refuses a bad token at sign-in with the service message', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/app`);
    await page.fill('#token', 'vmsr_not_a_token');
    await page.click('form.sign-in button[type=submit]');
    const alert = await page.waitForSelector('[role=alert]');
    assert.match((await alert.textContent()) ?? '', /401 unauthorized/);
  });

  it('opens a dashboard and draws every tile from its saved query', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await signIn(page, base, h.tokens.staff);
    await page.waitForSelector('a[href^="#/dashboard/"]');
    await page.click('a[href^="#/dashboard/"]');
    await page.waitForSelector('.tile');
    await page.waitForFunction(() => document.querySelectorAll('.tile .loading').length === 0);
    const ids = await page.$$eval('.tile', (tiles) =>
      tiles.map((t) => t.getAttribute('data-saved-query') ?? ''),
    );
    assert.ok(ids.length >= 3, `tiles: ${ids.length}`);
    const kinds = new Set<string>();
    for (const id of ids) {
      const run = (await api({ savedQueryId: id })) as Answer & {
        semanticQuery: { timeGrain: string | null };
      };
      const answer = { ...run, grain: run.semanticQuery.timeGrain };
      assert.equal(answer.status === 'ok' || answer.status === 'empty', true, id);
      const drawn = await drawnIn(page, id);
      assert.ok(drawn.kind, `${id} was drawn`);
      kinds.add(drawn.kind as string);
      assertDrawnFrom(drawn, answer, id);
    }
    assert.ok(kinds.size >= 2, `tiles of more than one shape: ${[...kinds].join(', ')}`);
    // The catalog's version is kept on the line, not shown to people (issue 57).
    const meta = await page.textContent('.tile .meta');
    assert.doesNotMatch(meta ?? '', /catalog|cv1-/);
    assert.match((await page.getAttribute('.tile .meta', 'data-catalog')) ?? '', /^cv1-[0-9a-f]+$/);
    assert.deepEqual(errors, []);
  });

  it('shows hostile and instruction-like names as literal text, running nothing', async () => {
    const page = await browser.newPage();
    await signIn(page, base, h.tokens.staff);
    await page.waitForSelector('a[href^="#/dashboard/"]');
    const names = await page.$$eval('.card .third-party', (nodes) =>
      nodes.map((n) => ({ text: n.textContent, children: n.children.length })),
    );
    const hostile = names.find((n) => n.text === HOSTILE);
    assert.ok(hostile, 'the markup is on the page as text');
    assert.equal(hostile.children, 0, 'as text only: no element was made from it');
    assert.ok(
      names.some((n) => n.text?.includes('Ignore previous instructions')),
      "the seed's instruction-like name is there, marked third-party",
    );
    // The seed's right-to-left and zero-width names (dashboard tiles), character for character.
    await page.click('a[href^="#/dashboard/"]');
    await page.waitForSelector('.tile h2 .third-party');
    const texts = await page.$$eval('.tile h2 .third-party', (nodes) =>
      nodes.map((n) => n.textContent),
    );
    assert.ok(texts.includes('דוח הוצאות עבודה חודשי'), 'right-to-left name as typed');
    assert.ok(texts.includes('Time\u200B entries per week'), 'zero-width space kept');
    await page.goBack();
    await page.click(`a[href="#/query/${hostileId}"]`);
    await page.waitForSelector(`[data-saved-query="${hostileId}"] .result`);
    assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('script:not([src])').count(), 0);
  });

  it('works at a phone width and with the keyboard alone, in colours that keep contrast', async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${base}/app`);
    // Keyboard only: Tab to the token, type it, Enter; then Tab to a dashboard and Enter.
    for (
      let i = 0;
      i < 20 && !(await page.evaluate(() => document.activeElement?.id === 'token'));
      i++
    )
      await page.keyboard.press('Tab');
    await page.keyboard.type(h.tokens.staff);
    await page.keyboard.press('Enter');
    await page.waitForSelector('a[href^="#/dashboard/"]');
    const dashboard = await page.getAttribute('a[href^="#/dashboard/"]', 'href');
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.getAttribute('href'))) === dashboard)
        break;
    }
    await page.keyboard.press('Enter');
    await page.waitForSelector('.tile .result');
    await page.waitForFunction(() => document.querySelectorAll('.tile .loading').length === 0);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 375, `no sideways scrolling at 375 px (${width})`);
    // WCAG contrast of the text the page shows, against the background it is on.
    const ratios = await page.evaluate(() => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c).map((v) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const background = (e: Element | null): string => {
        for (; e; e = e.parentElement) {
          const c = getComputedStyle(e).backgroundColor;
          if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
        }
        return 'rgb(255, 255, 255)';
      };
      return [
        'h1',
        'a',
        '.meta',
        '.third-party',
        'td',
        'th',
        'button',
        'button.secondary',
        '.supplier-name',
        '.incomplete',
        '.chart-note',
        '.big-number figcaption',
        '.currency-part h4',
      ].flatMap((selector) => {
        const e = document.querySelector(selector);
        if (!e) return [];
        const [a, b] = [lum(getComputedStyle(e).color), lum(background(e))];
        return [{ selector, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) }];
      });
    });
    assert.ok(ratios.length >= 12, JSON.stringify(ratios));
    for (const { selector, ratio } of ratios)
      assert.ok(ratio >= 4.5, `${selector} contrast ${ratio.toFixed(2)} is at least 4.5:1`);
  });
});
