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
  { ok: true; plan: QueryPlan } | { ok: false; code: RefusalCode; closestMetrics: string[] };

const VALUE_COUNT: Record<Filter['operator'], (n: number) => boolean> = {
  eq: (n) => n === 1,
  neq: (n) => n === 1,
  gte: (n) => n === 1,
  lte: (n) => n === 1,
  between: (n) => n === 2,
  in: (n) => n >= 1,
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
  const refuse = (code: RefusalCode, about?: string): Validation => ({
    ok: false,
    code,
    closestMetrics: about === undefined ? [] : closestMetrics(about, queryable(catalog)),
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
  const badFilter = (f: Filter) =>
    !view.dimensions.includes(f.dimension) ||
    !VALUE_COUNT[f.operator](f.values.length) ||
    (f.dimension === view.timeDimension && !f.values.every(isDate));
  if (filters.some(badFilter)) return refuse('bad_filter');

  const selected = new Set([...query.metrics, ...dimensions]);
  if (query.order.some((o) => !selected.has(o.key))) return refuse('bad_order');
  return { ok: true, plan: { view, metrics, query } };
}
/** Enabled metrics a query may use: closestMetrics never suggests an evaluative one. */
function queryable(catalog: Catalog): string[] {
  return [...catalog.metrics.values()].filter((m) => !m.evaluative).map((m) => m.key);
}
