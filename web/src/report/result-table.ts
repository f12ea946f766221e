import type { ReportResult } from '../types.js';
import { csvButton, csvOf, fileNameOf, type CsvCell } from '../csv.js';
import { cell, h, isProvenance, plainText, thirdParty } from '../dom.js';
import { CURRENCY, currencyReader, fixedCurrency, hasMoney, mixesCurrencies } from './currency.js';
import { changeNumber, formatChange, formatOf, unitsFigure } from '../format.js';
import type { Names } from '../session/names.js';
import { bucketLabel, isIncomplete } from './periods.js';
import { previousRowOf } from './compare.js';
import { rawValue } from './result-figure.js';

/**
 * The table of a result, the same rows the figure draws: columns headed by the catalog's labels,
 * every amount in its row's currency (or "not shown" where the rows may mix currencies), a
 * supplier's name beside its code, incomplete periods marked, and, when comparing, each figure's
 * previous value and change. "Download CSV" saves what the table shows.
 */
export interface TableOptions {
  timeKeys: ReadonlySet<string>;
  names: Names;
  title: string;
  previous?: ReportResult | null;
}

const MIXED = 'not shown: mixed currencies';

export function resultTable(result: ReportResult, options: TableOptions): HTMLElement {
  const { names, previous } = options;
  const metrics = new Map(result.metricDefinitions.map((m) => [m.key, m]));
  const currencyOf = currencyReader(result);
  const mixed = mixesCurrencies(result);
  const grain = result.semanticQuery.timeGrain;
  const range = result.semanticQuery.timeRange;
  const earlier = previous ? previousRowOf(result, previous, options.timeKeys) : () => undefined;
  const header: string[] = [];
  for (const c of result.columns) {
    const metric = metrics.get(c);
    header.push(metric ? metric.label : names.label(c));
    if (metric && previous) header.push(`${metric.label}, previous period`, 'Change');
  }
  const number = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  // Money whose one currency a filter fixed: the CSV gets that currency as a column of its own.
  const fixed =
    hasMoney(result) && !result.columns.includes(CURRENCY)
      ? fixedCurrency(result.semanticQuery)
      : null;
  const csvHeader = fixed ? [...header, 'Currency'] : header;

  const body = h('tbody');
  const csvRows: CsvCell[][] = [];
  for (const row of result.rows) {
    const cells: HTMLElement[] = [];
    const csv: CsvCell[] = [];
    const before = earlier(row);
    for (const c of result.columns) {
      const metric = metrics.get(c);
      if (!metric) {
        cells.push(h('td', {}, ...dimensionCell(c, row[c], options, grain, range)));
        csv.push(c === 'supplier' ? supplierText(row[c], names) : timeText(c, row[c], options));
        continue;
      }
      const money = metric.unit === 'cents';
      const currency = currencyOf(row);
      const hidden = money && (mixed || !currency);
      const format = formatOf(metric.unit, currency);
      cells.push(
        h('td', { class: hidden ? 'mixed' : 'num' }, hidden ? MIXED : cell(row[c], format)),
      );
      csv.push(hidden ? null : csvNumber(metric.unit, row[c]));
      if (!previous) continue;
      const then = hidden ? null : number(before?.[c]);
      cells.push(h('td', { class: 'num previous' }, hidden ? '—' : cell(before?.[c], format)));
      cells.push(
        h(
          'td',
          { class: 'num change' },
          hidden ? '—' : formatChange(metric.unit, number(row[c]), then),
        ),
      );
      csv.push(
        hidden ? null : csvNumber(metric.unit, before?.[c]),
        hidden ? null : changeNumber(metric.unit, number(row[c]), then),
      );
    }
    body.append(h('tr', {}, ...cells));
    csvRows.push(fixed ? [...csv, fixed] : csv);
  }
  return h(
    'div',
    { class: 'result-table' },
    h(
      'div',
      { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': `${options.title}: table` },
      h(
        'table',
        {},
        h('thead', {}, h('tr', {}, ...header.map((label) => h('th', { scope: 'col' }, label)))),
        body,
      ),
    ),
    h(
      'div',
      { class: 'table-actions' },
      csvButton(fileNameOf(options.title), () => csvOf(csvHeader, csvRows)),
    ),
  );
}

/** A dimension's cell: a supplier's code and name, a period named and marked when incomplete. */
function dimensionCell(
  key: string,
  value: unknown,
  options: TableOptions,
  grain: string | null | undefined,
  range: ReportResult['semanticQuery']['timeRange'],
): (Node | string)[] {
  if (key === 'supplier' && isProvenance(value)) {
    const name = options.names.supplier(value.value);
    return name
      ? [thirdParty(value), ' ', h('span', { class: 'supplier-name' }, thirdParty(name))]
      : [thirdParty(value)];
  }
  if (options.timeKeys.has(key) && typeof value === 'string') {
    const label = bucketLabel(value, grain);
    return isIncomplete(value, grain, range)
      ? [
          label,
          ' ',
          h(
            'span',
            { class: 'incomplete', title: 'Not over yet, or cut by the range' },
            '(incomplete)',
          ),
        ]
      : [label];
  }
  return [cell(value) as Node | string];
}

function supplierText(value: unknown, names: Names): string {
  const code = plainText(value);
  const name = names.supplier(code);
  return name ? `${code} ${name.value}` : code;
}

const timeText = (key: string, value: unknown, options: TableOptions) =>
  options.timeKeys.has(key) ? rawValue(value) : plainText(value);

/**
 * Money as currency units (the currency is its own column), other figures as they are; a figure
 * past 2^53 as its exact decimal text.
 */
function csvNumber(unit: string, value: unknown): CsvCell {
  if (value === null || value === undefined) return null;
  const figure = typeof value === 'string' ? value : Number(value);
  if (unit === 'cents') return unitsFigure(figure);
  return typeof figure === 'string' && !Number.isSafeInteger(Number(figure))
    ? figure
    : Number(figure);
}
