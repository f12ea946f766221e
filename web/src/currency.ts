import type { ReportResult } from './result-view.js';

/**
 * Money kept true (SPEC: integer cents in each row's own currency, never converted). A result
 * with a money metric is read per currency: the `currency` column where the query grouped by it,
 * or the one currency a filter fixed; otherwise its amounts may add currencies together and are
 * not shown as numbers.
 */
export const CURRENCY = 'currency';

export const hasMoney = (result: Pick<ReportResult, 'metricDefinitions'>) =>
  result.metricDefinitions.some((m) => m.unit === 'cents');

type Filter = { dimension: string; operator: string; values: unknown[] };

/** The one currency a query's filters fix (`currency eq X`, or `in` of one), or null. */
export function fixedCurrency(query: ReportResult['semanticQuery']): string | null {
  const filters = ((query as { filters?: Filter[] }).filters ?? []).filter(
    (f) => f.dimension === CURRENCY && (f.operator === 'eq' || f.operator === 'in'),
  );
  const values = filters.flatMap((f) => f.values.map(String));
  return filters.length > 0 && new Set(values).size === 1 ? values[0] : null;
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

/**
 * The query a money result should have been: the same with the currency dimension added, when
 * the metrics allow it (every money view of the catalog has one) and it is not there yet.
 */
export function currencySplitQuery<Q extends { dimensions?: string[] }>(
  query: Q,
  allowed: readonly string[],
): Q | null {
  const dimensions = query.dimensions ?? [];
  if (dimensions.includes(CURRENCY) || !allowed.includes(CURRENCY)) return null;
  return { ...query, dimensions: [...dimensions, CURRENCY] };
}
