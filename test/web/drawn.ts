import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Frame, Page } from 'playwright-core';

/**
 * What the page drew, read back from the page itself: each chart's Chart.js data (labels, series,
 * the axis's tick labels, which buckets are marked incomplete) with the currency it is drawn in,
 * the table's headings and cells, and the big numbers. Tests compare these with the API's answers.
 */
export interface DrawnChart {
  currency: string | null;
  labels: string[];
  series: { label: string; data: (number | null)[]; previous: boolean }[];
  yTicks: string[];
  xTicks: number;
}

export interface Drawn {
  kind: string | null;
  charts: DrawnChart[];
  headers: string[];
  rows: string[][];
  bigNumbers: string[];
}

export type Row = Record<string, unknown>;
export interface Answer {
  status: string;
  rows: Row[];
  columns: string[];
  metricDefinitions: { key: string; label: string; unit: string }[];
  semanticQuery: {
    metrics: string[];
    dimensions: string[];
    timeGrain: string | null;
    timeRange: { from: string; to: string } | null;
  };
}

export const text = (value: unknown) =>
  typeof value === 'object' && value !== null
    ? String((value as { value: unknown }).value)
    : String(value);

export function drawnIn(page: Page | Frame, selector: string): Promise<Drawn> {
  return page.$eval(selector, (root) => {
    type Scale = { ticks: { label: unknown }[] };
    type Instance = {
      data: {
        labels: unknown[];
        datasets: { label: unknown; data: (number | null)[]; borderDash?: unknown }[];
      };
      scales: { x: Scale; y: Scale };
    };
    const charts = [...root.querySelectorAll('canvas')].map((canvas) => {
      const chart = (canvas as HTMLCanvasElement & { vmsChart: Instance }).vmsChart;
      return {
        currency: canvas.closest('[data-currency]')?.getAttribute('data-currency') ?? null,
        labels: chart.data.labels.map(String),
        series: chart.data.datasets.map((d) => ({
          label: String(d.label),
          data: d.data,
          previous: Array.isArray(d.borderDash),
        })),
        yTicks: chart.scales.y.ticks.map((t) => String(t.label)),
        xTicks: chart.scales.x.ticks.length,
      };
    });
    return {
      kind: root.querySelector('.result')?.getAttribute('data-chart-kind') ?? null,
      charts,
      headers: [...root.querySelectorAll('thead th')].map((th) => th.textContent ?? ''),
      rows: [...root.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
      ),
      bigNumbers: [...root.querySelectorAll('.big-number .value')].map((n) => n.textContent ?? ''),
    };
  });
}

const money = (cents: unknown, currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' }).format(
    Number(cents) / 100,
  );

/**
 * Money is true: every money cell of the table is the answer's row's amount in that row's own
 * currency, and every money point of a chart is one row's amount in the chart's currency. A sum
 * across currencies matches neither, so it fails here.
 */
export function assertMoneyTrue(drawn: Drawn, answer: Answer, id: string): void {
  const moneyKeys = answer.metricDefinitions.filter((m) => m.unit === 'cents').map((m) => m.key);
  if (moneyKeys.length === 0) return;
  assert.ok(answer.columns.includes('currency'), `${id}: a money answer is grouped by currency`);
  assert.equal(drawn.rows.length, answer.rows.length, `${id}: a table row per answer row`);
  const currencyAt = drawn.headers.indexOf('Currency');
  assert.ok(currencyAt >= 0, `${id}: the table has the currency`);
  answer.rows.forEach((row, i) => {
    const currency = String(row.currency);
    assert.equal(drawn.rows[i][currencyAt], currency, `${id} row ${i}: its currency`);
    for (const key of moneyKeys) {
      const label = answer.metricDefinitions.find((m) => m.key === key)?.label ?? key;
      const at = drawn.headers.indexOf(label);
      assert.ok(at >= 0, `${id}: a column for ${label}`);
      assert.equal(drawn.rows[i][at], money(row[key], currency), `${id} row ${i} ${key}`);
    }
  });
  // Every chart of a money answer is one currency's, and says so in each series it draws.
  for (const chart of drawn.charts) {
    assert.ok(chart.currency, `${id}: a chart of a money answer is drawn for one currency`);
    const ownSeries = chart.series.filter((s) => !s.previous);
    const amounts = answer.rows
      .filter((row) => row.currency === chart.currency)
      .flatMap((row) => moneyKeys.map((key) => Number(row[key]) / 100));
    for (const series of ownSeries) {
      assert.ok(series.label.endsWith(`(${chart.currency})`), `${id}: ${series.label}`);
      for (const value of series.data)
        if (value !== null)
          assert.ok(
            amounts.includes(value),
            `${id}: ${series.label} point ${value} is one ${chart.currency} row's amount`,
          );
    }
  }
}

/** Presses a "Download CSV" button and reads the file the browser saved, as its lines. */
export async function downloadCsv(
  page: Page,
  button: string,
): Promise<{ name: string; lines: string[] }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  const text = await readFile((await download.path()) as string, 'utf8');
  return { name: download.suggestedFilename(), lines: text.trimEnd().split('\r\n') };
}
