import type { SqlDialect } from './dialect.js';
import { isRatio, type Aggregate, type Condition, type Metric } from './definitions.js';
import type { TimeGrain } from './query-schema.js';
import { chooseRollup, type RollupRead } from './rollup-choice.js';
import { FACT_COUNT, physicalColumns, type HeldRollup } from './rollups.js';
import type { QueryPlan } from './validate.js';
import type { ColumnExpr, View } from './views.js';

/** A piece of SQL with its `?` parameters in order. */
interface Fragment {
  sql: string;
  params: unknown[];
}

export interface CompileContext {
  dialect: SqlDialect;
  workspaceId: string;
  /** Pay codes of the program configuration, for a time entry's band. */
  payCodes: { code: string; band: string }[];
  /** Today's UTC date (YYYY-MM-DD), for tenure. */
  today: string;
  /** The rollups the engine holds (the columnar copy's), for queries they cover; none: the facts. */
  rollups?: readonly HeldRollup[];
}

/** Result columns: `d<i>` per dimension, `m<i>` per metric (or `m<i>_n`, `m<i>_d` for a ratio). */
export interface CompiledReport {
  sql: string;
  params: unknown[];
}

const frag = (sql: string, params: unknown[] = []): Fragment => ({ sql, params });

/** The context while one query compiles: the view columns it has read so far, for its joins. */
interface Compiling extends CompileContext {
  reads: Set<string>;
  /** The rollup the query reads, or null: its view's facts. */
  rolled: RollupRead | null;
}

function column(view: View, name: string, ctx: Compiling): Fragment {
  const expr: ColumnExpr | undefined = Object.hasOwn(view.columns, name)
    ? view.columns[name]
    : undefined;
  if (expr === undefined) throw new Error(`view ${view.name} has no column ${name}`);
  ctx.reads.add(name);
  if (typeof expr === 'string') return frag(expr);
  if ('bandOfPayCode' in expr) {
    if (ctx.payCodes.length === 0) return frag('NULL');
    const whens = ctx.payCodes.map(() => 'WHEN ? THEN ?').join(' ');
    return frag(
      `(CASE ${expr.bandOfPayCode} ${whens} ELSE NULL END)`,
      ctx.payCodes.flatMap((p) => [p.code, p.band]),
    );
  }
  const [from, to] = expr.daysBetween;
  return to === 'today'
    ? frag(ctx.dialect.daysBetween(from, '?'), [ctx.today])
    : frag(ctx.dialect.daysBetween(from, to));
}

type Operator = Condition['op'] | 'gte' | 'lte' | 'between';

/** One comparison of a column with bound values; `neq` keeps nulls (a null is not equal). */
function predicate(col: Fragment, op: Operator, values: readonly unknown[]): Fragment {
  const p = col.params;
  switch (op) {
    case 'eq':
      return frag(`${col.sql} = ?`, [...p, values[0]]);
    case 'neq':
      return frag(`(${col.sql} <> ? OR ${col.sql} IS NULL)`, [...p, values[0], ...p]);
    case 'in':
      return frag(`${col.sql} IN (${values.map(() => '?').join(', ')})`, [...p, ...values]);
    case 'not_null':
      return frag(`${col.sql} IS NOT NULL`, p);
    case 'gte':
      return frag(`${col.sql} >= ?`, [...p, values[0]]);
    case 'lte':
      return frag(`${col.sql} <= ?`, [...p, values[0]]);
    case 'between':
      return frag(`${col.sql} >= ? AND ${col.sql} <= ?`, [...p, values[0], ...p, values[1]]);
  }
}

function condition(view: View, c: Condition, ctx: Compiling): Fragment {
  return predicate(column(view, c.column, ctx), c.op, c.values ?? []);
}

function all(parts: Fragment[], joiner: string): Fragment {
  return frag(
    parts.map((p) => p.sql).join(joiner),
    parts.flatMap((p) => p.params),
  );
}

function aggregate(view: View, a: Aggregate, ctx: Compiling): Fragment {
  const where = (a.where ?? []).map((c) => condition(view, c, ctx));
  const value = a.column !== undefined ? column(view, a.column, ctx) : frag('1');
  // Conditions go inside the aggregate, so metrics with different conditions share one scan.
  const guarded = where.length
    ? frag(`CASE WHEN ${all(where, ' AND ').sql} THEN ${value.sql} END`, [
        ...all(where, '').params,
        ...value.params,
      ])
    : value;
  switch (a.agg) {
    case 'count':
      if (ctx.rolled) return rolledCount(where, a.column !== undefined ? value : null, ctx.rolled);
      return where.length || a.column !== undefined
        ? frag(`COUNT(${guarded.sql})`, guarded.params)
        : frag('COUNT(*)');
    case 'count_distinct':
      return frag(`COUNT(DISTINCT ${guarded.sql})`, guarded.params);
    case 'sum':
      return frag(`COALESCE(SUM(${guarded.sql}), 0)`, guarded.params);
    case 'avg':
      return frag(`AVG(${ctx.dialect.real(guarded.sql)})`, guarded.params);
    case 'min':
      return frag(`MIN(${guarded.sql})`, guarded.params);
    case 'max':
      return frag(`MAX(${guarded.sql})`, guarded.params);
  }
}

/** A count over rollup rows: the facts each row stands for, where the conditions hold. */
function rolledCount(where: Fragment[], value: Fragment | null, rolled: RollupRead): Fragment {
  const conditions = value ? [...where, frag(`${value.sql} IS NOT NULL`, value.params)] : where;
  const facts = `${rolled.rollup.alias}.${FACT_COUNT}`;
  if (conditions.length === 0) return frag(`COALESCE(SUM(${facts}), 0)`);
  const when = all(conditions, ' AND ');
  return frag(`COALESCE(SUM(CASE WHEN ${when.sql} THEN ${facts} END), 0)`, when.params);
}

/** The start of the bucket a date falls in, as an ISO date (weeks start on Monday). */
export function bucket(dateSql: string, grain: TimeGrain, dialect: SqlDialect): string {
  switch (grain) {
    case 'day':
      return dateSql;
    case 'week':
      return dialect.isoWeekStart(dateSql);
    case 'month':
      return `(substr(${dateSql}, 1, 7) || '-01')`;
    case 'quarter':
      return (
        `(substr(${dateSql}, 1, 5) || CASE WHEN substr(${dateSql}, 6, 2) <= '03' THEN '01' WHEN substr(${dateSql}, 6, 2) <= '06' THEN '04'` +
        ` WHEN substr(${dateSql}, 6, 2) <= '09' THEN '07' ELSE '10' END || '-01')`
      );
    case 'year':
      return `(substr(${dateSql}, 1, 4) || '-01-01')`;
  }
}

function metricColumns(view: View, metric: Metric, index: number, ctx: Compiling): Fragment[] {
  if (isRatio(metric.measure)) {
    const [n, d] = metric.measure.ratio.map((a) => aggregate(view, a, ctx));
    return [frag(`${n.sql} AS m${index}_n`, n.params), frag(`${d.sql} AS m${index}_d`, d.params)];
  }
  const a = aggregate(view, metric.measure, ctx);
  return [frag(`${a.sql} AS m${index}`, a.params)];
}

function metricOrderExpr(metric: Metric, index: number, ctx: Compiling): string {
  return isRatio(metric.measure)
    ? `${ctx.dialect.real(`q.m${index}_n`)} / NULLIF(q.m${index}_d, 0)`
    : `q.m${index}`;
}

/** The view's facts: its table, the joins the query's columns need, and the conditions. */
function factSource(
  view: View,
  range: { from: string; to: string } | null,
  workspace: Fragment,
  filters: Fragment[],
  ctx: Compiling,
): Fragment {
  const where = [workspace];
  if (range)
    where.push(predicate(column(view, view.timeDimension, ctx), 'between', [range.from, range.to]));
  where.push(...filters);
  // Join only what the chosen columns read: every join is an inner join on a required key,
  // so leaving an unused one out changes no row.
  const joins = view.joins
    .filter((join) => join.for.some((name) => ctx.reads.has(name)))
    .map((join) => ` ${join.sql}`)
    .join('');
  const conditions = all(where, ' AND ');
  return frag(`${view.from}${joins} WHERE ${conditions.sql}`, conditions.params);
}

/**
 * A rollup's rows for the whole months of the query (or all of them), and the facts of the days
 * at the range's edges shaped as rows of one fact each, as one source under the view's alias: the
 * view's expressions read keys, sums and the time column alike from both (rollup-choice.ts).
 */
function rollupSource(
  view: View,
  rolled: RollupRead,
  workspace: Fragment,
  filters: Fragment[],
  ctx: Compiling,
): Fragment {
  const { rollup, months, edges } = rolled;
  const { alias } = rollup;
  const read = [...ctx.reads].flatMap((name) => physicalColumns(view, name));
  const columns = [...new Set(read)].sort().map((c) => `${alias}.${c}`);
  const time = frag(`${alias}.${rollup.time}`);
  const branch = (table: string, facts: string, span: { from: string; to: string } | null) => {
    const where = all(
      [workspace, ...(span ? [predicate(time, 'between', [span.from, span.to])] : []), ...filters],
      ' AND ',
    );
    const selected = [...columns, `${facts} AS ${FACT_COUNT}`].join(', ');
    return frag(`SELECT ${selected} FROM ${table} ${alias} WHERE ${where.sql}`, where.params);
  };
  const branches = [
    branch(rollup.name, `${alias}.${FACT_COUNT}`, months),
    ...edges.map((edge) => branch(rollup.table, '1', edge)),
  ];
  const union = all(branches, ' UNION ALL ');
  return frag(`(${union.sql}) ${alias}`, union.params);
}

/**
 * Compiles a validated plan to one SQL statement: the grouped aggregate inside, the
 * deterministic order (requested keys, then remaining dimensions ascending; nulls last; text in
 * code-point order) and the window outside. Every value is a bound parameter.
 */
export function compileReport(
  plan: QueryPlan,
  context: CompileContext,
  window: { offset: number; take: number },
): CompiledReport {
  const { view, query, metrics } = plan;
  const rolled = context.rollups ? chooseRollup(plan, context.rollups) : null;
  const ctx: Compiling = { ...context, reads: new Set(), rolled };
  const dims = query.dimensions.map((key, i) => {
    const raw = column(view, key, ctx);
    if (key !== view.timeDimension || !query.timeGrain)
      return frag(`${raw.sql} AS d${i}`, raw.params);
    // Time columns are parameterless expressions, so a bucket may repeat them freely.
    return frag(`${bucket(raw.sql, query.timeGrain, ctx.dialect)} AS d${i}`);
  });
  const selects = [...dims, ...metrics.flatMap((m, i) => metricColumns(view, m, i, ctx))];

  const workspace = frag(`${view.workspaceColumn} = ?`, [ctx.workspaceId]);
  // Dimension values are text: integers in a filter compare as their decimal text.
  const filters = query.filters.map((f) =>
    predicate(column(view, f.dimension, ctx), f.operator, f.values.map(String)),
  );
  const source = rolled
    ? rollupSource(view, rolled, workspace, filters, ctx)
    : factSource(view, query.timeRange, workspace, filters, ctx);
  const groupBy = dims.length ? ` GROUP BY ${dims.map((_, i) => i + 1).join(', ')}` : '';
  const inner =
    `SELECT ${selects.map((s) => s.sql).join(', ')} FROM ${source.sql}` +
    `${groupBy} HAVING COUNT(*) > 0`;

  const orderParts: string[] = [];
  const ordered = new Set<string>();
  const byKey = (key: string, direction: 'asc' | 'desc') => {
    ordered.add(key);
    const d = query.dimensions.indexOf(key);
    const expr =
      d >= 0
        ? `q.d${d}`
        : metricOrderExpr(metrics[query.metrics.indexOf(key)], query.metrics.indexOf(key), ctx);
    const sorted = d >= 0 ? ctx.dialect.codePointOrder(expr) : expr;
    orderParts.push(`(${expr} IS NULL) ASC`, `${sorted} ${direction.toUpperCase()}`);
  };
  for (const o of query.order) byKey(o.key, o.direction);
  for (const key of query.dimensions) if (!ordered.has(key)) byKey(key, 'asc');

  const sql =
    `SELECT * FROM (${inner}) q` +
    (orderParts.length ? ` ORDER BY ${orderParts.join(', ')}` : '') +
    ' LIMIT ? OFFSET ?';
  return {
    sql,
    params: [...selects.flatMap((s) => s.params), ...source.params, window.take, window.offset],
  };
}
