import { DEFAULT_METRICS } from './default-catalog.js';
import { isRatio, type Aggregate, type MetricDefinition } from './definitions.js';
import { DIMENSIONS, VIEWS, type ColumnExpr, type View } from './views.js';

/**
 * A rollup: a view's facts summed by workspace, calendar month and some of the fact table's
 * columns (its keys), kept in the columnar copy beside the table it sums (store/duckdb/rollups).
 * Each row holds the month's first day in the time column, the keys, each summed column's sum
 * under its own name and `fact_count`, the facts it sums. So a view column over keys reads the
 * same from a rollup row as from a fact, a sum of a summed column adds up the same, and a count
 * is the sum of `fact_count`. Which rollups exist follows from the catalog (`ROLLUPS` below).
 */
export interface Rollup {
  /** Its table in the copy, e.g. `rollup_time_entries_by_supplier`. */
  name: string;
  view: string;
  /** The fact table it sums, and the alias the view's expressions use. */
  table: string;
  alias: string;
  /** The fact table's time column: a date (YYYY-MM-DD), never null. */
  time: string;
  /** Columns grouped by, besides the workspace and the month. */
  keys: readonly string[];
  /** Columns summed. */
  sums: readonly string[];
}

/** The count of facts a rollup row stands for (a fact stands for one). */
export const FACT_COUNT = 'fact_count';

function fromOf(view: View): { table: string; alias: string } {
  const [table, alias] = view.from.split(' ');
  return { table, alias };
}

/** The fact table columns a view column's expression reads. */
export function physicalColumns(view: View, name: string): string[] {
  const expr: ColumnExpr | undefined = Object.hasOwn(view.columns, name)
    ? view.columns[name]
    : undefined;
  if (expr === undefined) throw new Error(`view ${view.name} has no column ${name}`);
  const text =
    typeof expr === 'string'
      ? expr
      : 'bandOfPayCode' in expr
        ? expr.bandOfPayCode
        : expr.daysBetween.join(' ');
  const { alias } = fromOf(view);
  const found = new Set<string>();
  for (const match of text.matchAll(/\b([a-z]+)\.([a-z_]+)\b/g))
    if (match[1] === alias) found.add(match[2]);
    else throw new Error(`view ${view.name} column ${name} reads another table`);
  return [...found];
}

/** The one fact column a view column is, or null when it is an expression over several or none. */
export function plainColumn(view: View, name: string): string | null {
  const expr = view.columns[name];
  const { alias } = fromOf(view);
  const match = typeof expr === 'string' ? /^([a-z]+)\.([a-z_]+)$/.exec(expr) : null;
  return match && match[1] === alias ? match[2] : null;
}

const aggregatesOf = (m: MetricDefinition): Aggregate[] =>
  isRatio(m.measure) ? [...m.measure.ratio] : [m.measure];

/** Sums and counts add up across a month's rows; a distinct count, an average, a min or max do not. */
export const additive = (a: Aggregate) => a.agg === 'sum' || a.agg === 'count';

/**
 * The rollups of one view, from the default catalog's metrics over it (docs/reports.md "Rollups"):
 * a view has rollups when it reads one table (no joins) and every default metric over it adds up
 * (sums and counts, and ratios of them); that is, the two report fact tables, which hold nearly
 * all the rows. Every rollup of a view keys on the columns its metrics' conditions read, and on
 * the currency when a metric is money (money is read per currency); it sums the columns its
 * metrics sum. One rollup has those keys alone; one more per categorical dimension adds that
 * dimension, so any query grouped or filtered by one dimension beyond them finds a rollup.
 */
function rollupsOfView(view: View, metrics: MetricDefinition[]): Rollup[] {
  const own = metrics.filter((m) => m.view === view.name);
  if (view.joins.length > 0 || own.length === 0) return [];
  const aggregates = own.flatMap(aggregatesOf);
  if (!aggregates.every(additive)) return [];
  const keys = new Set<string>();
  const sums = new Set<string>();
  for (const a of aggregates) {
    for (const c of a.where ?? []) for (const p of physicalColumns(view, c.column)) keys.add(p);
    if (a.agg === 'sum' && a.column !== undefined) {
      const plain = plainColumn(view, a.column);
      if (plain === null) return [];
      sums.add(plain);
    }
  }
  if (own.some((m) => m.unit === 'cents') && view.dimensions.includes('currency'))
    for (const p of physicalColumns(view, 'currency')) keys.add(p);
  const { table, alias } = fromOf(view);
  const time = plainColumn(view, view.timeDimension);
  if (time === null) return [];
  const base = [...keys].sort();
  const rollup = (suffix: string, extra: string[]): Rollup => ({
    name: `rollup_${view.name}_${suffix}`,
    view: view.name,
    table,
    alias,
    time,
    keys: [...base, ...extra.filter((k) => !base.includes(k))],
    sums: [...sums].sort(),
  });
  const rollups = [rollup('by_month', [])];
  for (const key of view.dimensions) {
    if (DIMENSIONS.get(key)?.type !== 'categorical') continue;
    const extra = physicalColumns(view, key).filter((p) => !keys.has(p));
    if (extra.length > 0) rollups.push(rollup(`by_${key}`, extra));
  }
  return rollups;
}

/** Every rollup the columnar copy keeps, from the views and the default catalog. */
export const ROLLUPS: readonly Rollup[] = [...VIEWS.values()].flatMap((view) =>
  rollupsOfView(view, Object.values(DEFAULT_METRICS)),
);

/** A rollup the engine holds, with its size (the compiler takes the smallest that covers). */
export interface HeldRollup {
  rollup: Rollup;
  rows: number;
}
