/**
 * Money kept true (SPEC: integer cents in each row's own currency, never converted). A result
 * with a money metric is read per currency: the `currency` column where the query grouped by it,
 * or the one currency a filter fixed; otherwise its amounts may add currencies together and are
 * not shown as numbers.
 */
export const CURRENCY = 'currency';

export const hasMoney = (result: Pick<ReportResult, 'metricDefinitions'>) =>
  result.metricDefinitions.some((m) => m.unit === 'cents');

type Filter = { dimension: string; operator: string; values: readonly unknown[] };

/**
 * The one currency a query's filters fix, or null: a `currency eq X` (or `in` of one value) keeps
 * every row in X, whatever other filters on currency say (filters all hold at once).
 */
export function fixedCurrency(query: { filters?: readonly Filter[] }): string | null {
  const one = (query.filters ?? []).find(
    (f) =>
      f.dimension === CURRENCY &&
      (f.operator === 'eq' || f.operator === 'in') &&
      f.values.length === 1,
  );
  return one ? String(one.values[0]) : null;
}

/** Where a row's amounts are in: its currency cell, the filter's one currency, or null (mixed). */
export function currencyReader(
  result: ReportResult,
): (row: Record<string, unknown>) => string | null {
  if (result.columns.includes(CURRENCY))
    return (row) => (typeof row[CURRENCY] === 'string' ? (row[CURRENCY] as string) : null);
  const fixed = fixedCurrency(result.semanticQuery);
  return () => fixed;
}

/** True when the result's money cannot be read per currency (it may add currencies together). */
export const mixesCurrencies = (result: ReportResult) =>
  hasMoney(result) && !result.columns.includes(CURRENCY) && !fixedCurrency(result.semanticQuery);

/**
 * A result with a currency column and a money metric, as one result per currency (the currency
 * column dropped), largest first by row count, so each can be drawn on an axis of its own.
 */
export function splitByCurrency(result: ReportResult): [string, ReportResult][] {
  if (!hasMoney(result) || !result.columns.includes(CURRENCY)) return [];
  const parts = new Map<string, Record<string, unknown>[]>();
  for (const row of result.rows) {
    const code = String(row[CURRENCY]);
    parts.set(code, [...(parts.get(code) ?? []), row]);
  }
  const columns = result.columns.filter((c) => c !== CURRENCY);
  return [...parts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, rows]) => [
      code,
      { ...result, columns, rows, semanticQuery: withoutCurrency(result.semanticQuery) },
    ]);
}

const withoutCurrency = (query: ReportResult['semanticQuery']) => ({
  ...query,
  dimensions: (query.dimensions ?? []).filter((d) => d !== CURRENCY),
});
import type { ReportResult } from '../types.js';
