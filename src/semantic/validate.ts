import type { RefusalCode } from './refusals.js';
import type { Catalog } from './catalog.js';
import { closestMetrics } from './closest.js';
import type { Metric } from './definitions.js';
import { resolvePeriod } from './period.js';
import type { Filter, NormalizedQuery, Period, Query } from './query-schema.js';
import { DIMENSIONS, VIEWS, type View } from './views.js';

export interface QueryPlan {
  query: NormalizedQuery;
  view: View;
  metrics: Metric[];
}

export type Validation =
  | { ok: true; plan: QueryPlan }
  | {
      ok: false;
      code: RefusalCode;
      closestMetrics: string[];
      /** Why, where the code's fixed message would not say (bad_filter); else absent. */
      message?: string;
    };

/** How many values each operator takes, as a test and in words. */
const VALUE_COUNT: Record<Filter['operator'], { fits: (n: number) => boolean; words: string }> = {
  eq: { fits: (n) => n === 1, words: 'exactly 1 value' },
  neq: { fits: (n) => n === 1, words: 'exactly 1 value' },
  gte: { fits: (n) => n === 1, words: 'exactly 1 value' },
  lte: { fits: (n) => n === 1, words: 'exactly 1 value' },
  between: { fits: (n) => n === 2, words: 'exactly 2 values' },
  in: { fits: (n) => n >= 1, words: 'at least 1 value' },
};

export function isDate(value: string | number): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Fills defaults and resolves any period against today (UTC): the query as it will run. */
export function normalizeQuery(
  definition: { query: Query; period?: Period },
  today: Date,
): NormalizedQuery {
  const { query } = definition;
  return {
    metrics: [...query.metrics],
    dimensions: [...(query.dimensions ?? [])],
    filters: (query.filters ?? []).map((f) => ({
      dimension: f.dimension,
      operator: f.operator,
      values: [...f.values],
    })),
    timeGrain: query.timeGrain ?? null,
    timeRange: definition.period
      ? resolvePeriod(definition.period, today)
      : (query.timeRange ?? null),
    order: (query.order ?? []).map((o) => ({ key: o.key, direction: o.direction })),
    limit: query.limit ?? 100,
  };
}

/**
 * Checks a normalized query against the catalog. When several refusals apply, the first in
 * this order wins (README "Refusal precedence"): unknown_metric, metric_unavailable (metric),
 * evaluative_not_available, mixed_views, unknown_dimension, metric_unavailable (dimension),
 * dimension_unsupported, filters (unknown_dimension, then bad_filter), bad_order.
 */
export function validateQuery(query: NormalizedQuery, catalog: Catalog): Validation {
  const refuse = (code: RefusalCode, about?: string, message?: string): Validation => ({
    ok: false,
    code,
    closestMetrics: about === undefined ? [] : closestMetrics(about, queryable(catalog)),
    ...(message === undefined ? {} : { message }),
  });
  const unknown = query.metrics.find((key) => !catalog.knownMetrics.has(key));
  if (unknown !== undefined) return refuse('unknown_metric', unknown);
  const unavailable = query.metrics.find((key) => !catalog.metrics.has(key));
  if (unavailable !== undefined) return refuse('metric_unavailable', unavailable);
  const metrics = query.metrics.map((key) => catalog.metrics.get(key) as Metric);
  if (metrics.some((m) => m.evaluative)) return refuse('evaluative_not_available');
  if (new Set(metrics.map((m) => m.view)).size > 1) return refuse('mixed_views');
  const view = VIEWS.get(metrics[0].view) as View;

  const { dimensions, filters } = query;
  if (dimensions.some((key) => !DIMENSIONS.has(key))) return refuse('unknown_dimension');
  if (dimensions.some((key) => !catalog.dimensions.has(key))) return refuse('metric_unavailable');
  if (dimensions.some((key) => !view.dimensions.includes(key)))
    return refuse('dimension_unsupported');

  // Each filter rule is checked across all filters before the next, as for metrics and dimensions.
  if (filters.some((f) => !DIMENSIONS.has(f.dimension))) return refuse('unknown_dimension');
  for (const [i, filter] of filters.entries()) {
    const problem = filterProblem(filter, view);
    if (problem !== null)
      return refuse(
        'bad_filter',
        undefined,
        `Filter on ${filter.dimension} (query.filters[${i}]): ${problem}.`,
      );
  }

  const selected = new Set([...query.metrics, ...dimensions]);
  if (query.order.some((o) => !selected.has(o.key))) return refuse('bad_order');
  return { ok: true, plan: { view, metrics, query } };
}
/**
 * Why a filter does not fit the view, in words, or null when it does: a dimension of another
 * view, a wrong count of values for its operator, a non-date on the time dimension (SPEC's
 * bad_filter cases; a value outside a dimension's listed set matches nothing: `empty`). The message names the value by its position and never
 * repeats it (docs/api.md: the value given is never repeated; it is the client's text).
 */
function filterProblem(filter: Filter, view: View): string | null {
  if (!view.dimensions.includes(filter.dimension))
    return `the chosen metrics cannot be filtered by ${filter.dimension}; their dimensions are ${view.dimensions.join(', ')}`;
  const count = VALUE_COUNT[filter.operator];
  if (!count.fits(filter.values.length))
    return `${filter.operator} takes ${count.words}, not ${filter.values.length}`;
  for (const [j, value] of filter.values.entries())
    if (filter.dimension === view.timeDimension && !isDate(value))
      return `values[${j}] is not a date (YYYY-MM-DD)`;
  return null;
}

/** Enabled metrics a query may use: closestMetrics never suggests an evaluative one. */
function queryable(catalog: Catalog): string[] {
  return [...catalog.metrics.values()].filter((m) => !m.evaluative).map((m) => m.key);
}
