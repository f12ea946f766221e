import type { ExplorerCatalog } from '../types.js';
import type { Provenance } from '../dom.js';
import { isTimeDimension, queryableMetrics, type RunBody } from './explorer-query.js';

/**
 * The values a dimension has in this workspace, for a filter to offer (issue 22, item 4). They
 * are found through the API itself: run_semantic_query with one metric of the chosen metrics'
 * view, grouped and ordered by the dimension. So the page needs no endpoint of its own, and it
 * sees exactly the values the token may see. No DOM here: the form draws what this finds.
 */

/** The most values offered for one dimension; more are said to exist, and can be typed. */
export const VALUES_CAP = 200;

export interface OfferedValue {
  /** What a filter sends: the plain value, or a provenance envelope's `.value`. */
  value: string;
  /** People-typed text as the API sent it (shown as third-party text), or null for plain. */
  envelope: Provenance | null;
}

export type OfferedValues =
  { ok: true; values: OfferedValue[]; truncated: boolean } | { ok: false; reason: string };

/** The members of a run_semantic_query answer read here. */
interface ValuesAnswer {
  status: string;
  code?: string;
  rows?: Record<string, unknown>[];
  truncated?: boolean;
}

export type RunQuery = (body: RunBody) => Promise<unknown>;

const isEnvelope = (v: unknown): v is Provenance =>
  typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'vms.provenance';

/** The view the chosen metrics read, as its dimension list (no two views share one). */
const viewOf = (catalog: ExplorerCatalog, metrics: readonly string[]) =>
  catalog.metrics.find((m) => m.key === metrics[0])?.dimensions;

/**
 * The query that lists a dimension's values beside `metrics`, or null (a time dimension, which
 * takes dates; a dimension the metrics do not have). Its metric: a count of the same view
 * (cheapest), else any queryable metric of it. Either gives every value present: a metric's
 * condition is applied inside its aggregate (compile.ts), never to the rows grouped.
 */
export function valuesQueryOf(
  catalog: ExplorerCatalog,
  metrics: readonly string[],
  dimension: string,
): RunBody | null {
  const view = viewOf(catalog, metrics);
  if (!view?.includes(dimension) || isTimeDimension(catalog, dimension)) return null;
  const same = queryableMetrics(catalog).filter(
    (m) => m.dimensions.length === view.length && m.dimensions.every((d) => view.includes(d)),
  );
  const metric = same.find((m) => m.unit === 'count') ?? same[0];
  if (!metric) return null;
  return {
    query: {
      metrics: [metric.key],
      dimensions: [dimension],
      order: [{ key: dimension, direction: 'asc' }],
      limit: VALUES_CAP,
    },
  };
}

/** An answer as values: plain ones as text, envelopes kept to show; no value (null) skipped. */
export function offeredValuesOf(answer: unknown, dimension: string): OfferedValues {
  const a = answer as ValuesAnswer;
  if (a?.status === 'refused')
    return { ok: false, reason: `The service would not list them (${String(a.code)}).` };
  const values: OfferedValue[] = [];
  for (const row of a?.rows ?? []) {
    const v = row[dimension];
    if (isEnvelope(v)) values.push({ value: v.value, envelope: v });
    else if (typeof v === 'string' || typeof v === 'number')
      values.push({ value: String(v), envelope: null });
  }
  return { ok: true, values, truncated: a?.truncated === true };
}

/** A source of dimension values: `peek` what is known now, `load` what is not yet. */
export interface ValuesSource {
  peek(metrics: readonly string[], dimension: string): OfferedValues | undefined;
  load(metrics: readonly string[], dimension: string): Promise<OfferedValues>;
}

/**
 * Dimension values through `run`, each dimension of each view asked once (one source lives as
 * long as the session); an answer that failed is forgotten, so the next draw asks again.
 */
export function valuesSource(catalog: ExplorerCatalog, run: RunQuery): ValuesSource {
  const known = new Map<string, OfferedValues>();
  const asked = new Map<string, Promise<OfferedValues>>();
  const keyOf = (metrics: readonly string[], dimension: string) =>
    `${dimension}\n${[...(viewOf(catalog, metrics) ?? [])].sort().join(',')}`;
  return {
    peek: (metrics, dimension) => known.get(keyOf(metrics, dimension)),
    load(metrics, dimension) {
      const key = keyOf(metrics, dimension);
      const body = valuesQueryOf(catalog, metrics, dimension);
      if (!body) return Promise.resolve({ ok: false, reason: 'No values to list.' });
      let pending = asked.get(key);
      if (!pending) {
        pending = run(body).then(
          (answer) => offeredValuesOf(answer, dimension),
          () => ({ ok: false as const, reason: 'The values could not be fetched.' }),
        );
        asked.set(key, pending);
        void pending.then((found) => {
          if (found.ok) known.set(key, found);
          else asked.delete(key);
        });
      }
      return pending;
    },
  };
}
