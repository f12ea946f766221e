import { isRatio, type Aggregate } from './definitions.js';
import { additive, physicalColumns, plainColumn, type HeldRollup, type Rollup } from './rollups.js';
import type { QueryPlan } from './validate.js';

/** A range of dates, both ends included (YYYY-MM-DD). */
export interface DateSpan {
  from: string;
  to: string;
}

/**
 * How a query reads a rollup: the rollup's months (first days, both included; null: all of
 * them), and the days at a range's edges, in months the range covers only in part, read from the
 * facts themselves.
 */
export interface RollupRead {
  rollup: Rollup;
  months: DateSpan | null;
  edges: DateSpan[];
}

const day = (date: Date) => date.toISOString().slice(0, 10);
const utc = (iso: string) => new Date(`${iso}T00:00:00Z`);
/** The first day of the month `monthsLater` after `iso`'s (setUTCFullYear: Date.UTC reads 0–99 as 1900–1999). */
const monthStart = (iso: string, monthsLater = 0) => {
  const d = utc(iso);
  const start = new Date(0);
  start.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + monthsLater, 1);
  return day(start);
};
const dayBefore = (iso: string) => day(new Date(utc(iso).getTime() - 86_400_000));

/**
 * A range split at month boundaries: the whole months it covers (first days) and the days left
 * over at either end; null when it covers no whole month.
 */
export function splitByMonth(range: DateSpan): { months: DateSpan; edges: DateSpan[] } | null {
  const first = range.from.endsWith('-01') ? range.from : monthStart(range.from, 1);
  // The first day after the last whole month: the next month's when `to` ends its month.
  const next = monthStart(range.to, 1);
  const after = dayBefore(next) === range.to ? next : monthStart(range.to);
  const last = monthStart(dayBefore(after));
  if (first > last || first >= after) return null;
  const edges: DateSpan[] = [];
  if (range.from < first) edges.push({ from: range.from, to: dayBefore(first) });
  if (after <= range.to) edges.push({ from: after, to: range.to });
  return { months: { from: first, to: last }, edges };
}

/** The coarse grains a month's row can be bucketed into. */
const MONTHLY = new Set(['month', 'quarter', 'year']);

/**
 * The rollup a query can be answered from, the smallest that covers it, or null (docs/reports.md
 * "Rollups"): its metrics add up (sums of summed columns, counts of rows or of key columns, and
 * ratios of those), everything else it reads (dimensions, filters, metric conditions) is keys,
 * the time dimension is grouped by month, quarter or year if at all and never filtered, and a
 * time range covers at least one whole month.
 */
export function chooseRollup(plan: QueryPlan, held: readonly HeldRollup[]): RollupRead | null {
  const { view, query, metrics } = plan;
  const candidates = held.filter((h) => h.rollup.view === view.name);
  if (candidates.length === 0) return null;
  const time = view.timeDimension;
  if (query.dimensions.includes(time) && !MONTHLY.has(query.timeGrain ?? '')) return null;
  const keyed: string[] = [];
  const summed: string[] = [];
  const aggregates: Aggregate[] = metrics.flatMap((m) =>
    isRatio(m.measure) ? [...m.measure.ratio] : [m.measure],
  );
  for (const a of aggregates) {
    if (!additive(a)) return null;
    for (const c of a.where ?? []) keyed.push(c.column);
    if (a.column === undefined) continue;
    if (a.agg === 'count') keyed.push(a.column);
    else {
      const plain = plainColumn(view, a.column);
      if (plain === null) return null;
      summed.push(plain);
    }
  }
  for (const key of query.dimensions) if (key !== time) keyed.push(key);
  for (const f of query.filters) keyed.push(f.dimension);
  if (keyed.includes(time)) return null;
  const needed = [...new Set(keyed.flatMap((c) => physicalColumns(view, c)))];
  let months: DateSpan | null = null;
  let edges: DateSpan[] = [];
  if (query.timeRange) {
    const split = splitByMonth(query.timeRange);
    if (split === null) return null;
    ({ months, edges } = split);
  }
  const covering = candidates
    .filter(
      ({ rollup }) =>
        needed.every((c) => rollup.keys.includes(c)) &&
        summed.every((c) => rollup.sums.includes(c)),
    )
    .sort((a, b) => a.rows - b.rows);
  return covering.length > 0 ? { rollup: covering[0].rollup, months, edges } : null;
}
