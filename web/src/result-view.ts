import { drawChart, type ChartSpec } from './chart.js';
import { cell, h, plainText, thirdParty, type Provenance } from './dom.js';
import { chartValue, formatOf } from './format.js';
import { refusalWords } from './refusal-words.js';

/** A report run's answer (run_semantic_query, run_saved_query), as the app reads it. */
export interface ReportResult {
  status: 'ok' | 'empty';
  rows: Record<string, unknown>[];
  columns: string[];
  truncated: boolean;
  truncatedBy: 'query_limit' | 'row_budget' | null;
  nextCursor: string | null;
  catalogVersion: string;
  metricDefinitions: { key: string; label: string; unit: string }[];
  semanticQuery: {
    metrics: string[];
    dimensions?: string[];
    timeGrain?: string | null;
    timeRange?: { from: string; to: string } | null;
  };
}

export interface ReportRefusal {
  status: 'refused';
  code: string;
  message: Provenance;
  closestMetrics?: string[];
  catalogVersion?: string;
}

export type ReportAnswer = ReportResult | ReportRefusal;

/** The next page of the same run (its nextCursor), for "Load more". */
export type More = (cursor: string) => Promise<ReportAnswer>;

/** Most series a line chart draws (the largest by total); the table keeps every row. */
const MAX_SERIES = 8;

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

function chartSpec(result: ReportResult, timeKeys: ReadonlySet<string>): ChartSpec | null {
  const shape = chartKindOf(result, timeKeys);
  // One axis: the metrics of the first one's unit are drawn; the others are in the table.
  const first = result.metricDefinitions[0];
  const metrics = result.metricDefinitions.filter((m) => m.unit === first.unit);
  const value = (row: Record<string, unknown>, key: string, unit: string) => {
    const v = row[key];
    return v === null || v === undefined ? null : chartValue(unit, Number(v));
  };
  if (shape.kind === 'category') {
    return {
      kind: 'bar',
      title: `${metrics.map((m) => m.label).join(', ')} by ${shape.category}`,
      labels: result.rows.map((row) => plainText(row[shape.category])),
      series: metrics.map((m) => ({
        label: m.label,
        values: result.rows.map((row) => value(row, m.key, m.unit)),
      })),
    };
  }
  if (shape.kind !== 'time') return null;
  const labels = [...new Set(result.rows.map((row) => plainText(row[shape.time])))].sort();
  const at = new Map(labels.map((label, i) => [label, i]));
  const title = `${metrics.map((m) => m.label).join(', ')} over ${shape.time}`;
  if (!shape.category) {
    return {
      kind: 'line',
      title,
      labels,
      series: metrics.map((m) => {
        const values: (number | null)[] = labels.map(() => null);
        for (const row of result.rows)
          values[at.get(plainText(row[shape.time])) ?? 0] = value(row, m.key, m.unit);
        return { label: m.label, values };
      }),
    };
  }
  // One line per category of the first metric, the largest first.
  const metric = metrics[0];
  const byCategory = new Map<string, (number | null)[]>();
  for (const row of result.rows) {
    const name = plainText(row[shape.category]);
    const values = byCategory.get(name) ?? labels.map(() => null);
    values[at.get(plainText(row[shape.time])) ?? 0] = value(row, metric.key, metric.unit);
    byCategory.set(name, values);
  }
  const total = (values: (number | null)[]) => values.reduce<number>((s, v) => s + (v ?? 0), 0);
  const series = [...byCategory]
    .sort(([, a], [, b]) => total(b) - total(a))
    .slice(0, MAX_SERIES)
    .map(([label, values]) => ({ label, values }));
  return {
    kind: 'line',
    title: `${metric.label} over ${shape.time} by ${shape.category}`,
    labels,
    series,
  };
}

function table(result: ReportResult): HTMLElement {
  const units = new Map(result.metricDefinitions.map((m) => [m.key, m.unit]));
  const labels = new Map(result.metricDefinitions.map((m) => [m.key, m.label]));
  const body = h('tbody');
  for (const row of result.rows) {
    body.append(
      h(
        'tr',
        {},
        ...result.columns.map((c) => {
          const unit = units.get(c);
          return h(
            'td',
            { class: unit ? 'num' : undefined },
            cell(row[c], unit ? formatOf(unit) : String),
          );
        }),
      ),
    );
  }
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Result table' },
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h('tr', {}, ...result.columns.map((c) => h('th', { scope: 'col' }, labels.get(c) ?? c))),
      ),
      body,
    ),
  );
}

function bigNumbers(result: ReportResult): HTMLElement {
  const row = result.rows[0] ?? {};
  return h(
    'div',
    { class: 'big-numbers' },
    ...result.metricDefinitions.map((m) =>
      h(
        'figure',
        { class: 'big-number', 'data-metric': m.key },
        h('div', { class: 'value' }, cell(row[m.key], formatOf(m.unit))),
        h('figcaption', {}, `${m.label}${m.unit === 'cents' ? ' (currency units)' : ''}`),
      ),
    ),
  );
}

function meta(result: ReportResult): HTMLElement {
  const range = result.semanticQuery.timeRange;
  return h(
    'p',
    { class: 'meta' },
    `Catalog ${result.catalogVersion}`,
    ' · ',
    range ? `${range.from} to ${range.to}` : 'all time',
    result.semanticQuery.timeGrain ? ` · by ${result.semanticQuery.timeGrain}` : '',
    ` · ${result.rows.length} row${result.rows.length === 1 ? '' : 's'}`,
  );
}

/** A refusal: what it means in plain words (refusal-words.ts), then the service's code and message. */
export function refusalView(refusal: ReportRefusal): HTMLElement {
  return h(
    'div',
    { class: 'refusal', role: 'status' },
    h('p', { class: 'refusal-words' }, refusalWords(refusal.code)),
    h('strong', {}, `Refused (${refusal.code}): `),
    thirdParty(refusal.message),
    refusal.closestMetrics?.length
      ? h('p', {}, `Closest metrics: ${refusal.closestMetrics.join(', ')}`)
      : null,
  );
}

/**
 * A result drawn: its chart (over time, by category, or big numbers), the table beside it, the
 * catalog version and resolved time range, and its truncation: a row budget continues through
 * nextCursor ("Load more" appends the next page and draws again), a query limit is said.
 */
export function resultView(
  answer: ReportAnswer,
  timeKeys: ReadonlySet<string>,
  more?: More,
): HTMLElement {
  const root = h('div', { class: 'result' });
  const draw = (result: ReportResult) => {
    root.replaceChildren();
    if (result.status === 'empty' || result.rows.length === 0) {
      root.setAttribute('data-chart-kind', 'empty');
      root.append(meta(result), h('p', { class: 'empty' }, 'No rows for this query.'));
      return;
    }
    const spec = chartSpec(result, timeKeys);
    const shape = chartKindOf(result, timeKeys);
    const figure =
      shape.kind === 'number'
        ? bigNumbers(result)
        : spec
          ? drawChart(spec)
          : h('p', { class: 'note' }, 'Two or more categories: shown as a table.');
    root.setAttribute('data-chart-kind', shape.kind);
    root.append(meta(result), h('div', { class: 'figure-and-table' }, figure, table(result)));
    if (result.truncatedBy === 'query_limit')
      root.append(
        h(
          'p',
          { class: 'truncated' },
          `Truncated at the query's limit of ${result.rows.length} rows.`,
        ),
      );
    if (result.truncatedBy === 'row_budget' && result.nextCursor && more) {
      const cursor = result.nextCursor;
      const button = h(
        'button',
        { type: 'button', class: 'more' },
        `Truncated by the row budget: load more`,
      );
      button.addEventListener('click', async () => {
        button.setAttribute('disabled', '');
        const next = await more(cursor);
        if (next.status === 'refused') root.append(refusalView(next));
        else draw({ ...next, rows: [...result.rows, ...next.rows] });
      });
      root.append(button);
    }
  };
  if (answer.status === 'refused') root.append(refusalView(answer));
  else draw(answer);
  return root;
}
