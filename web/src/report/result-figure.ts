import type { ReportResult } from '../types.js';
import { drawChart, type ChartSpec } from './chart.js';
import { previousAtBucket } from './compare.js';
import { cell, h, plainText } from '../dom.js';
import { axisFormatOf, chartValue, formatChange, formatOf } from '../format.js';
import type { Names } from '../session/names.js';
import { bucketEnd, bucketLabel, isIncomplete } from './periods.js';

/**
 * The figure of one result (or of one currency's rows of it): a line chart over time, a bar
 * chart by category, big numbers, or nothing (a table alone), each point able to open the
 * explorer on itself. Metrics of different units are not drawn on one axis: the first drawn
 * metric's unit is drawn (money first when the rows are one currency's), the others are in the
 * table.
 */
export interface FigureOptions {
  timeKeys: ReadonlySet<string>;
  names: Names;
  /** The currency of every amount in this result, or null when it has no money. */
  currency: string | null;
  /** The previous period's rows of the same query, for comparison. */
  previous?: ReportResult | null;
  /** Opens the explorer on this result's query narrowed by these filters. */
  pick?: (filters: PickFilter[]) => void;
}

export interface PickFilter {
  dimension: string;
  operator: 'eq' | 'between';
  values: string[];
}

type Row = Record<string, unknown>;

/** How a result is drawn: over time, by category, as big numbers, or as a table alone. */
export function chartKindOf(result: ReportResult, timeKeys: ReadonlySet<string>) {
  const dimensions = result.columns.filter((c) => !result.semanticQuery.metrics.includes(c));
  const time = dimensions.find((d) => timeKeys.has(d));
  const categories = dimensions.filter((d) => d !== time);
  if (time && categories.length <= 1)
    return { kind: 'time' as const, time, category: categories[0] };
  if (!time && categories.length === 1)
    return { kind: 'category' as const, category: categories[0] };
  if (dimensions.length === 0) return { kind: 'number' as const };
  return { kind: 'table' as const };
}

/** A dimension value as the API sends it (a provenance envelope's value, or the value). */
export const rawValue = (value: unknown) => plainText(value);

/** A category as a chart labels it: a supplier's code with its name. */
export function categoryLabel(key: string, value: unknown, names: Names): string {
  const text = plainText(value);
  const name = key === 'supplier' ? names.supplier(text) : undefined;
  return name ? `${text} ${name.value}` : text;
}

/** Most series a line chart draws (the largest by total); the table keeps every row. */
const MAX_SERIES = 8;

const numberOf = (row: Row | undefined, key: string, unit: string) => {
  const v = row?.[key];
  return v === null || v === undefined ? null : chartValue(unit, Number(v));
};

function drawnMetrics(result: ReportResult, currency: string | null) {
  const money = result.metricDefinitions.filter((m) => m.unit === 'cents');
  const first = currency && money.length > 0 ? money[0] : result.metricDefinitions[0];
  return result.metricDefinitions.filter((m) => m.unit === first.unit);
}

export function chartSpec(result: ReportResult, options: FigureOptions): ChartSpec | null {
  const shape = chartKindOf(result, options.timeKeys);
  const metrics = drawnMetrics(result, options.currency);
  const unit = metrics[0].unit;
  const axis = axisFormatOf(unit, options.currency);
  // Tooltips say the figure as the table does (the axis may round it: EUR 20.7K).
  const exact = formatOf(unit, options.currency);
  const value = (n: number) => exact(unit === 'cents' ? Math.round(n * 100) : n);
  const inCurrency = unit === 'cents' && options.currency ? ` (${options.currency})` : '';
  const names = options.names;
  const previous = options.previous;
  const pick = options.pick;
  if (shape.kind === 'category') {
    const key = shape.category;
    const before = new Map(previous?.rows.map((row) => [rawValue(row[key]), row]) ?? []);
    return {
      kind: 'bar',
      axis,
      value,
      title: `${metrics.map((m) => m.label).join(', ')}${inCurrency} by ${names.label(key)}`,
      labels: result.rows.map((row) => categoryLabel(key, row[key], names)),
      series: [
        ...metrics.map((m) => ({
          label: `${m.label}${inCurrency}`,
          values: result.rows.map((row) => numberOf(row, m.key, m.unit)),
        })),
        ...(previous
          ? [
              {
                label: 'Previous period',
                previous: true,
                values: result.rows.map((row) =>
                  numberOf(before.get(rawValue(row[key])), metrics[0].key, unit),
                ),
              },
            ]
          : []),
      ],
      // A bar of no category (null) opens nothing: the API has no "is null" filter.
      onPick: pick
        ? (index) => {
            const value = result.rows[index][key];
            if (value !== null && value !== undefined)
              pick([{ dimension: key, operator: 'eq', values: [rawValue(value)] }]);
          }
        : undefined,
    };
  }
  if (shape.kind !== 'time') return null;
  const grain = result.semanticQuery.timeGrain;
  const range = result.semanticQuery.timeRange;
  const starts = [...new Set(result.rows.map((row) => rawValue(row[shape.time])))].sort();
  const at = new Map(starts.map((start, i) => [start, i]));
  const labels = starts.map((start) => bucketLabel(start, grain));
  const incomplete = starts.map((start) => isIncomplete(start, grain, range));
  const when = (index: number): PickFilter => ({
    dimension: shape.time,
    operator: 'between',
    values: [starts[index], bucketEnd(starts[index], grain)],
  });
  const over = `over ${names.label(shape.time)}`;
  const line = (
    label: string,
    rows: Row[],
    key: string,
    extra: Partial<ChartSpec['series'][0]> = {},
  ) => {
    const values: (number | null)[] = starts.map(() => null);
    for (const row of rows)
      values[at.get(rawValue(row[shape.time])) ?? 0] = numberOf(row, key, unit);
    return { label, values, ...extra };
  };
  if (!shape.category) {
    // The previous period's buckets, each drawn at the same place of this period's.
    const earlier = previous ? previousAtBucket(result, previous, shape.time) : () => undefined;
    return {
      kind: 'line',
      axis,
      value,
      incomplete,
      title: `${metrics.map((m) => m.label).join(', ')}${inCurrency} ${over}`,
      labels,
      series: [
        ...metrics.map((m) => line(`${m.label}${inCurrency}`, result.rows, m.key)),
        ...(previous
          ? [
              {
                label: 'Previous period',
                previous: true,
                values: starts.map((start) => numberOf(earlier(start), metrics[0].key, unit)),
              },
            ]
          : []),
      ],
      onPick: pick ? (index) => pick([when(index)]) : undefined,
    };
  }
  // One line per category of the first metric, the largest first.
  const metric = metrics[0];
  const category = shape.category;
  const byCategory = new Map<string, Row[]>();
  for (const row of result.rows) {
    const name = rawValue(row[category]);
    byCategory.set(name, [...(byCategory.get(name) ?? []), row]);
  }
  const total = (rows: Row[]) =>
    rows.reduce((s, row) => s + (numberOf(row, metric.key, unit) ?? 0), 0);
  const chosen = [...byCategory].sort(([, a], [, b]) => total(b) - total(a)).slice(0, MAX_SERIES);
  return {
    kind: 'line',
    axis,
    value,
    incomplete,
    title: `${metric.label}${inCurrency} ${over} by ${names.label(category)}`,
    labels,
    series: chosen.map(([, rows]) =>
      line(categoryLabel(category, rows[0][category], names), rows, metric.key),
    ),
    onPick: pick
      ? (index, series) =>
          pick([when(index), { dimension: category, operator: 'eq', values: [chosen[series][0]] }])
      : undefined,
  };
}

export function bigNumbers(result: ReportResult, options: FigureOptions): HTMLElement {
  const row = result.rows[0] ?? {};
  const before = options.previous?.rows[0];
  return h(
    'div',
    { class: 'big-numbers' },
    ...result.metricDefinitions.map((m) => {
      const format = formatOf(m.unit, options.currency);
      const now = row[m.key] === null || row[m.key] === undefined ? null : Number(row[m.key]);
      const then =
        before?.[m.key] === null || before?.[m.key] === undefined ? null : Number(before[m.key]);
      return h(
        'figure',
        { class: 'big-number', 'data-metric': m.key },
        h('div', { class: 'value' }, cell(row[m.key], format)),
        h('figcaption', {}, m.label),
        options.previous
          ? h(
              'p',
              { class: 'previous' },
              'Previous period: ',
              cell(before?.[m.key], format),
              ` · ${formatChange(m.unit, now, then)}`,
            )
          : null,
      );
    }),
  );
}

/** The figure of a result: big numbers, a chart, or the sentence that the table is all. */
export function figureOf(result: ReportResult, options: FigureOptions): HTMLElement {
  const shape = chartKindOf(result, options.timeKeys);
  if (shape.kind === 'number') return bigNumbers(result, options);
  const spec = chartSpec(result, options);
  return spec
    ? drawChart(spec)
    : h('p', { class: 'note' }, 'Two or more categories: shown as a table.');
}
