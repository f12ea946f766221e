import type { Dialect } from '../dialect.js';
import type { ResourceSource, SelectionOrder, SelectionQuery } from '../store.js';
import { ruleFor, visibilityPredicate } from './resource-sql.js';

/**
 * SQL for selections (the OData feed's pages and counts, DESIGN §4.18): the viewer's visibility
 * first, as in lists, then the caller's predicates (rendered in this dialect, values bound), then
 * a keyset position on the order's columns. Nulls sort first ascending and last descending on
 * both databases (SQLite's default; PostgreSQL is told). Identifiers come from code only.
 */

interface Statement {
  sql: string;
  params: unknown[];
}

function whereOf(dialect: Dialect, source: ResourceSource, q: SelectionQuery): Statement {
  const vis = visibilityPredicate(ruleFor(source, q.viewer));
  let sql = `FROM ${source.table} t WHERE t.workspace_id = ?${vis.sql}`;
  const params: unknown[] = [q.workspaceId, ...vis.params.map((p) => p(q.viewer))];
  for (const predicate of q.where) {
    const rendered = predicate(dialect);
    sql += ` AND ${rendered.sql}`;
    params.push(...rendered.params);
  }
  return { sql, params };
}

/** The rows after `values` in `order`: one disjunct per key, the keys before it equal. */
function keysetAfter(order: readonly SelectionOrder[], values: readonly unknown[]): Statement {
  const plain = order.every((o) => !o.nullable && o.direction === order[0].direction);
  if (plain) {
    // A row-value comparison, which the (…, created_at, id) indexes answer.
    const cmp = order[0].direction === 'asc' ? '>' : '<';
    const columns = order.map((o) => `t.${o.column}`).join(', ');
    return { sql: `(${columns}) ${cmp} (${order.map(() => '?').join(', ')})`, params: [...values] };
  }
  const disjuncts: string[] = [];
  const params: unknown[] = [];
  order.forEach((key, i) => {
    const parts: string[] = [];
    const partParams: unknown[] = [];
    for (let j = 0; j < i; j++) {
      if (values[j] === null) parts.push(`t.${order[j].column} IS NULL`);
      else {
        parts.push(`t.${order[j].column} = ?`);
        partParams.push(values[j]);
      }
    }
    const c = `t.${key.column}`;
    const v = values[i];
    if (key.direction === 'asc') {
      if (v === null) parts.push(`${c} IS NOT NULL`);
      else {
        parts.push(`${c} > ?`);
        partParams.push(v);
      }
    } else {
      // Descending, nulls come last: nothing follows a null but other nulls, by later keys.
      if (v === null) return;
      parts.push(key.nullable ? `(${c} < ? OR ${c} IS NULL)` : `${c} < ?`);
      partParams.push(v);
    }
    disjuncts.push(`(${parts.join(' AND ')})`);
    params.push(...partParams);
  });
  return { sql: disjuncts.length > 0 ? `(${disjuncts.join(' OR ')})` : '1 = 0', params };
}

function orderBy(dialect: Dialect, order: readonly SelectionOrder[]): string {
  const nulls = (o: SelectionOrder) =>
    !o.nullable || dialect.name === 'sqlite'
      ? ''
      : o.direction === 'asc'
        ? ' NULLS FIRST'
        : ' NULLS LAST';
  return order.map((o) => `t.${o.column} ${o.direction.toUpperCase()}${nulls(o)}`).join(', ');
}

export function selectionPageSql(
  dialect: Dialect,
  source: ResourceSource,
  q: SelectionQuery,
): Statement {
  const where = whereOf(dialect, source, q);
  let sql = `SELECT ${source.columns.map((c) => `t.${c}`).join(', ')} ${where.sql}`;
  const params = [...where.params];
  if (q.after !== null) {
    const after = keysetAfter(q.order, q.after);
    sql += ` AND ${after.sql}`;
    params.push(...after.params);
  }
  sql += ` ORDER BY ${orderBy(dialect, q.order)} LIMIT ? OFFSET ?`;
  params.push(q.limit, q.offset);
  return { sql, params };
}

export function selectionCountSql(
  dialect: Dialect,
  source: ResourceSource,
  q: SelectionQuery,
): Statement {
  const where = whereOf(dialect, source, q);
  return { sql: `SELECT COUNT(*) AS n ${where.sql}`, params: where.params };
}
