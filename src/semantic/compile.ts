import type { SqlDialect } from './dialect.js';
import { isRatio, type Aggregate, type Condition, type Metric } from './definitions.js';
import type { TimeGrain } from './query-schema.js';
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
  const ctx: Compiling = { ...context, reads: new Set() };
  const dims = query.dimensions.map((key, i) => {
    const raw = column(view, key, ctx);
    if (key !== view.timeDimension || !query.timeGrain)
      return frag(`${raw.sql} AS d${i}`, raw.params);
    // Time columns are parameterless expressions, so a bucket may repeat them freely.
    return frag(`${bucket(raw.sql, query.timeGrain, ctx.dialect)} AS d${i}`);
  });
  const selects = [...dims, ...metrics.flatMap((m, i) => metricColumns(view, m, i, ctx))];

  const where: Fragment[] = [frag(`${view.workspaceColumn} = ?`, [ctx.workspaceId])];
  if (query.timeRange) {
    where.push(
      predicate(column(view, view.timeDimension, ctx), 'between', [
        query.timeRange.from,
        query.timeRange.to,
      ]),
    );
  }
  for (const f of query.filters) {
    // Dimension values are text: integers in a filter compare as their decimal text.
    where.push(predicate(column(view, f.dimension, ctx), f.operator, f.values.map(String)));
  }

  // Join only what the chosen columns read: every join is an inner join on a required key,
  // so leaving an unused one out changes no row.
  const joins = view.joins
    .filter((join) => join.for.some((name) => ctx.reads.has(name)))
    .map((join) => ` ${join.sql}`)
    .join('');
  const groupBy = dims.length ? ` GROUP BY ${dims.map((_, i) => i + 1).join(', ')}` : '';
  const inner =
    `SELECT ${selects.map((s) => s.sql).join(', ')} FROM ${view.from}${joins} WHERE ${where.map((w) => w.sql).join(' AND ')}` +
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
    params: [
      ...selects.flatMap((s) => s.params),
      ...where.flatMap((w) => w.params),
      window.take,
      window.offset,
    ],
  };
}
