/**
 * The explorer's model, apart from the page: what a person chose (metrics, dimensions, grain,
 * period or range, filters, order, limit), which choices the catalog allows next, the
 * run_semantic_query body those choices make, and that body read back from a shared address.
 * The form draws this model; the copy-as texts and the run all use `bodyOf` of it, so they are
 * one body.
 */
import { CURRENCY, fixedCurrency } from '../report/currency.js';
import type { PickFilter } from '../report/result-figure.js';
import type { CatalogDimension, ExplorerCatalog, ReportResult } from '../types.js';

export const TIME_GRAINS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type TimeGrain = (typeof TIME_GRAINS)[number];
export const OPERATORS = ['eq', 'neq', 'in', 'gte', 'lte', 'between'] as const;
export type Operator = (typeof OPERATORS)[number];
export const PERIOD_UNITS = ['month', 'quarter', 'year'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** The bounds of query-schema.ts, so the form offers nothing the server would reject as such. */
export const LIMITS = {
  maxOffset: 24,
  minYear: 2000,
  maxYear: 2100,
  maxLimit: 1000,
  maxMetrics: 20,
  maxDimensions: 10,
  maxFilters: 20,
} as const;

/** When the query looks: all time, a calendar period (SPEC's `period`), or a date range. */
export type When =
  | { kind: 'all' }
  | { kind: 'relative'; unit: PeriodUnit; offset: number }
  | { kind: 'quarter'; quarter: number; year: number | null }
  | { kind: 'range'; from: string; to: string };

/**
 * A filter as chosen: `values` picked from those offered (for eq, neq, gte, lte and between, by
 * position: '' is a position not yet chosen; for in, the ones ticked) and `typed`, values typed
 * by hand as comma-separated text. The body sends both, picked first, each once.
 */
export interface FilterDraft {
  dimension: string;
  operator: Operator;
  values: string[];
  typed: string;
}

export interface ExplorerState {
  metrics: string[];
  dimensions: string[];
  timeGrain: TimeGrain | null;
  when: When;
  filters: FilterDraft[];
  order: { key: string; direction: 'asc' | 'desc' } | null;
  limit: number | null;
  /**
   * Whether the body groups money by currency where a money metric is chosen and `currency`
   * is offered but not among `dimensions` (see `splitApplies`); ticked for a new query.
   */
  splitCurrency: boolean;
}

export interface RunBody {
  query: {
    metrics: string[];
    dimensions?: string[];
    filters?: { dimension: string; operator: Operator; values: string[] }[];
    timeGrain?: TimeGrain;
    timeRange?: { from: string; to: string };
    order?: { key: string; direction: 'asc' | 'desc' }[];
    limit?: number;
  };
  period?: { kind: 'relative'; unit: PeriodUnit; offset: number } | PeriodQuarter;
}
type PeriodQuarter = { kind: 'quarter'; quarter: number; year?: number };

export const emptyState = (): ExplorerState => ({
  metrics: [],
  dimensions: [],
  timeGrain: null,
  when: { kind: 'all' },
  filters: [],
  order: null,
  limit: null,
  splitCurrency: true,
});

/** Metrics a query may name: the evaluative ones are listed by the catalog but always refused. */
export const queryableMetrics = (catalog: ExplorerCatalog) =>
  catalog.metrics.filter((m) => !m.evaluative);

const sameDimensions = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * The metrics offered beside the chosen ones: every queryable metric before the first pick, then
 * only those reading the same view (a query of metrics of two views is refused as mixed_views).
 * The catalog does not name views; every metric of a view lists that view's dimensions, and no
 * two views have the same list (each has its own time dimension), so the list stands for it.
 */
export function offeredMetrics(catalog: ExplorerCatalog, chosen: readonly string[]) {
  const metrics = queryableMetrics(catalog);
  const first = metrics.find((m) => m.key === chosen[0]);
  return first ? metrics.filter((m) => sameDimensions(m.dimensions, first.dimensions)) : metrics;
}

/** The dimensions every chosen metric allows, in the catalog's order (none before a metric). */
export function offeredDimensions(
  catalog: ExplorerCatalog,
  chosen: readonly string[],
): CatalogDimension[] {
  const metrics = chosen.map((key) => catalog.metrics.find((m) => m.key === key));
  if (metrics.length === 0 || metrics.some((m) => !m)) return [];
  const allowed = (key: string) => metrics.every((m) => m?.dimensions.includes(key));
  return catalog.dimensions.filter((d) => allowed(d.key));
}

export const isTimeDimension = (catalog: ExplorerCatalog, key: string) =>
  catalog.dimensions.some((d) => d.key === key && d.type === 'time');

/** A grain applies only with a time dimension among the chosen ones. */
export const grainApplies = (catalog: ExplorerCatalog, state: ExplorerState) =>
  state.dimensions.some((key) => isTimeDimension(catalog, key));

// --- Money and currency (issue 22): cents are in each row's currency, never converted ---------

export const MONEY_UNIT = 'cents';
export { CURRENCY };

/** A money metric is among `metrics` and their view offers the currency dimension. */
export function moneyByCurrency(catalog: ExplorerCatalog, metrics: readonly string[]): boolean {
  const money = metrics.some((key) =>
    catalog.metrics.some((m) => m.key === key && m.unit === MONEY_UNIT),
  );
  return money && offeredDimensions(catalog, metrics).some((d) => d.key === CURRENCY);
}

/** "Split by currency" is offered: money is chosen, currency is offered and not chosen itself. */
export const splitApplies = (catalog: ExplorerCatalog, state: ExplorerState) =>
  moneyByCurrency(catalog, state.metrics) &&
  !state.dimensions.includes(CURRENCY) &&
  state.dimensions.length < LIMITS.maxDimensions;

/** The dimensions the body sends: the chosen ones, and currency when split by it. */
export const bodyDimensions = (catalog: ExplorerCatalog, state: ExplorerState) =>
  state.splitCurrency && splitApplies(catalog, state)
    ? [...state.dimensions, CURRENCY]
    : [...state.dimensions];

/**
 * The amounts add different currencies together: split unticked, and no filter keeps one
 * currency alone (eq, or in with one value).
 */
export function mixesCurrencies(catalog: ExplorerCatalog, state: ExplorerState): boolean {
  const filters = state.filters.map((f) => ({ ...f, values: filterBodyValues(f) }));
  return splitApplies(catalog, state) && !state.splitCurrency && !fixedCurrency({ filters });
}

/**
 * The metrics chosen anew. A fresh choice of money (none before, some now) ticks "Split by
 * currency"; otherwise the tick stays as it was, so a body read back without currency stays so.
 */
export function chooseMetrics(
  catalog: ExplorerCatalog,
  state: ExplorerState,
  metrics: string[],
): ExplorerState {
  const fresh = !moneyByCurrency(catalog, state.metrics) && moneyByCurrency(catalog, metrics);
  return settle(catalog, {
    ...state,
    metrics,
    splitCurrency: fresh ? true : state.splitCurrency,
  });
}

/** Keys a result may be ordered by: its metrics and the dimensions the body sends. */
export const orderKeys = (catalog: ExplorerCatalog, state: ExplorerState) => [
  ...state.metrics,
  ...bodyDimensions(catalog, state),
];

/**
 * The state made coherent with the catalog after a change: metrics of other views, dimensions
 * and filters the metrics no longer allow, a grain without a time dimension and an order by a
 * key no longer chosen are dropped (so the form never shows a choice it did not offer).
 */
export function settle(catalog: ExplorerCatalog, state: ExplorerState): ExplorerState {
  const offered = new Set(offeredMetrics(catalog, state.metrics).map((m) => m.key));
  const metrics = state.metrics.filter((key) => offered.has(key)).slice(0, LIMITS.maxMetrics);
  const allowed = new Set(offeredDimensions(catalog, metrics).map((d) => d.key));
  const dimensions = state.dimensions
    .filter((key) => allowed.has(key))
    .slice(0, LIMITS.maxDimensions);
  const next: ExplorerState = {
    ...state,
    metrics,
    dimensions,
    filters: state.filters.filter((f) => allowed.has(f.dimension)).slice(0, LIMITS.maxFilters),
  };
  if (!grainApplies(catalog, next)) next.timeGrain = null;
  if (next.order && !orderKeys(catalog, next).includes(next.order.key)) next.order = null;
  return next;
}

// --- Filters ---------------------------------------------------------------------------------

/** Comma-separated text as filter values: each trimmed, empty ones dropped. */
export const filterValues = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** How many values an operator takes: one, two (between), or any number (in). */
export const arityOf = (operator: Operator): 1 | 2 | 'many' =>
  operator === 'in' ? 'many' : operator === 'between' ? 2 : 1;

/** The values a filter sends: those picked, then those typed, each once. */
export const filterBodyValues = (f: FilterDraft) => [
  ...new Set([...f.values.filter((v) => v !== ''), ...filterValues(f.typed)]),
];

/**
 * A filter on a time dimension picks its values with date inputs, one per position; with `in`
 * (any number of dates) they are typed.
 */
export const pickedByDate = (catalog: ExplorerCatalog, f: FilterDraft) =>
  isTimeDimension(catalog, f.dimension) && arityOf(f.operator) !== 'many';

export const newFilter = (dimension: string): FilterDraft => ({
  dimension,
  operator: 'eq',
  values: [],
  typed: '',
});

/** Another dimension: what was picked or typed was for the old one. */
export const withDimension = (f: FilterDraft, dimension: string): FilterDraft =>
  dimension === f.dimension ? f : newFilter(dimension);

/**
 * Another operator: the picked values are kept up to its count (no hidden value is sent); dates
 * picked for a time filter become typed text when `in` takes any number of them.
 */
export function withOperator(
  catalog: ExplorerCatalog,
  f: FilterDraft,
  operator: Operator,
): FilterDraft {
  const picked = f.values.filter((v) => v !== '');
  const arity = arityOf(operator);
  if (arity === 'many' && isTimeDimension(catalog, f.dimension))
    return { ...f, operator, values: [], typed: [...picked, ...filterValues(f.typed)].join(', ') };
  return { ...f, operator, values: arity === 'many' ? picked : f.values.slice(0, arity) };
}

/** The value at a position chosen (eq to between), or '' for none. */
export function withValueAt(f: FilterDraft, index: number, value: string): FilterDraft {
  const values = [...f.values];
  while (values.length <= index) values.push('');
  values[index] = value;
  return { ...f, values };
}

/** A value ticked or unticked (in). */
export const withValuePicked = (f: FilterDraft, value: string, on: boolean): FilterDraft => ({
  ...f,
  values: on
    ? [...f.values.filter((v) => v !== value), value]
    : f.values.filter((v) => v !== value),
});

/** The run_semantic_query body of the state: members left out where the server's default holds. */
export function bodyOf(catalog: ExplorerCatalog, state: ExplorerState): RunBody {
  const query: RunBody['query'] = { metrics: [...state.metrics] };
  const dimensions = bodyDimensions(catalog, state);
  if (dimensions.length > 0) query.dimensions = dimensions;
  if (state.filters.length > 0)
    query.filters = state.filters.map((f) => ({
      dimension: f.dimension,
      operator: f.operator,
      values: filterBodyValues(f),
    }));
  if (state.timeGrain && grainApplies(catalog, state)) query.timeGrain = state.timeGrain;
  const when = state.when;
  if (when.kind === 'range') query.timeRange = { from: when.from, to: when.to };
  if (state.order) query.order = [{ ...state.order }];
  if (state.limit !== null) query.limit = state.limit;
  const body: RunBody = { query };
  if (when.kind === 'relative')
    body.period = { kind: 'relative', unit: when.unit, offset: when.offset };
  if (when.kind === 'quarter')
    body.period = {
      kind: 'quarter',
      quarter: when.quarter,
      ...(when.year !== null ? { year: when.year } : {}),
    };
  return body;
}

/** Anything the form cannot run yet, as sentences (the server checks the rest and says why). */
export function problemsOf(state: ExplorerState): string[] {
  const problems: string[] = [];
  if (state.metrics.length === 0) problems.push('Choose at least one metric.');
  const when = state.when;
  if (when.kind === 'range' && (!when.from || !when.to))
    problems.push('Give both dates of the range.');
  else if (when.kind === 'range' && when.from > when.to)
    problems.push('The range must start on or before its end.');
  if (
    when.kind === 'quarter' &&
    when.year !== null &&
    !(Number.isInteger(when.year) && when.year >= LIMITS.minYear && when.year <= LIMITS.maxYear)
  )
    problems.push(`The year must be from ${LIMITS.minYear} to ${LIMITS.maxYear}, or empty.`);
  const limit = state.limit;
  if (limit !== null && !(Number.isInteger(limit) && limit >= 1 && limit <= LIMITS.maxLimit))
    problems.push(`Most rows must be a whole number from 1 to ${LIMITS.maxLimit}.`);
  for (const f of state.filters)
    if (filterBodyValues(f).length === 0)
      problems.push(`Give a value to the filter on ${f.dimension}.`);
  return problems;
}

// --- The state in the address (#/explorer/<body>), so a query can be shared -----------------

const HASH_PREFIX = '#/explorer/';

export const hashOf = (body: RunBody) =>
  `${HASH_PREFIX}${encodeURIComponent(JSON.stringify(body))}`;

/** The body in an address, or null: `#/explorer/<body>` (also `#/explorer?q=<body>`). */
export function bodyInHash(hash: string): unknown {
  const encoded = hash.startsWith(HASH_PREFIX)
    ? hash.slice(HASH_PREFIX.length)
    : /^#\/explorer\?(?:.*&)?q=([^&]*)/.exec(hash)?.[1];
  if (!encoded) return null;
  try {
    return JSON.parse(decodeURIComponent(encoded));
  } catch {
    return null;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown) =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
const integer = (v: unknown, min: number, max: number) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : null;
const oneOf = <T extends string>(v: unknown, options: readonly T[]) =>
  options.includes(v as T) ? (v as T) : null;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A calendar date as YYYY-MM-DD (what a date input can show). */
const isDate = (v: string) =>
  DATE.test(v) && !Number.isNaN(Date.parse(v)) && new Date(v).toISOString().startsWith(v);

/**
 * A body from a shared address read back as form state. The address is anyone's text: only what
 * the form could have made is kept (known keys, the schema's bounds), then `settle` drops what the
 * catalog does not allow together.
 */
export function stateOfBody(catalog: ExplorerCatalog, body: unknown): ExplorerState {
  // A body read back keeps its dimensions as they are: no currency split it did not have.
  const state: ExplorerState = { ...emptyState(), splitCurrency: false };
  if (!isRecord(body) || !isRecord(body.query)) return state;
  const query = body.query;
  state.metrics = [...new Set(strings(query.metrics))];
  state.dimensions = [...new Set(strings(query.dimensions))];
  state.timeGrain = oneOf(query.timeGrain, TIME_GRAINS);
  state.filters = (Array.isArray(query.filters) ? query.filters : []).flatMap((f) => {
    if (!isRecord(f) || typeof f.dimension !== 'string') return [];
    const operator = oneOf(f.operator, OPERATORS);
    const values = Array.isArray(f.values)
      ? f.values.filter((v) => typeof v === 'string' || typeof v === 'number').map(String)
      : [];
    if (!operator) return [];
    // A time filter's values go back to its date inputs when they are dates, else to the text.
    const asText =
      isTimeDimension(catalog, f.dimension) &&
      (arityOf(operator) === 'many' || !values.every(isDate));
    return [
      asText
        ? { dimension: f.dimension, operator, values: [], typed: values.join(', ') }
        : { dimension: f.dimension, operator, values, typed: '' },
    ];
  });
  const order = Array.isArray(query.order) ? query.order[0] : undefined;
  if (isRecord(order) && typeof order.key === 'string')
    state.order = { key: order.key, direction: order.direction === 'desc' ? 'desc' : 'asc' };
  state.limit = integer(query.limit, 1, LIMITS.maxLimit);
  const range = query.timeRange;
  const period = body.period;
  if (isRecord(range) && typeof range.from === 'string' && typeof range.to === 'string') {
    if (DATE.test(range.from) && DATE.test(range.to))
      state.when = { kind: 'range', from: range.from, to: range.to };
  } else if (isRecord(period) && period.kind === 'relative') {
    const unit = oneOf(period.unit, PERIOD_UNITS);
    const offset = integer(period.offset, -LIMITS.maxOffset, 0);
    if (unit && offset !== null) state.when = { kind: 'relative', unit, offset };
  } else if (isRecord(period) && period.kind === 'quarter') {
    const quarter = integer(period.quarter, 1, 4);
    const year = integer(period.year, LIMITS.minYear, LIMITS.maxYear);
    if (quarter !== null) state.when = { kind: 'quarter', quarter, year };
  }
  const settled = settle(catalog, state);
  // Currency last, beside money: the split made it, so it is read back as the split ticked.
  const last = settled.dimensions.length - 1;
  if (settled.dimensions[last] === CURRENCY && moneyByCurrency(catalog, settled.metrics))
    return { ...settled, dimensions: settled.dimensions.slice(0, last), splitCurrency: true };
  return settled;
}

/** A query as a report answer states it (its `semanticQuery`). */
type AnsweredQuery = ReportResult['semanticQuery'];

/** The query as a run_semantic_query body: members the server fills by default dropped. */
export function bodyOfQuery(query: AnsweredQuery, extra: Partial<AnsweredQuery> = {}): RunBody {
  const q: Record<string, unknown> = { ...query, ...extra };
  for (const key of ['filters', 'order', 'dimensions'] as const)
    if (Array.isArray(q[key]) && (q[key] as unknown[]).length === 0) delete q[key];
  if (q.timeGrain === null) delete q.timeGrain;
  if (q.timeRange === null || q.timeRange === undefined) delete q.timeRange;
  return { query: q as RunBody['query'] };
}

/** The explorer's address for a query narrowed by filters (a click on a point, or none). */
export function explorerHref(query: AnsweredQuery, filters: PickFilter[] = []): string {
  return hashOf(bodyOfQuery(query, { filters: [...(query.filters ?? []), ...filters] }));
}
