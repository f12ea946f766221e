import { SUPPLIER_VISIBILITY, type Viewer, type VisibilityRule } from '../visibility.js';
import type { ListCondition, Order, ResourceSource } from '../store.js';

/**
 * SQL for resource lists and gets, shared by both dialects: `?` placeholders (the PostgreSQL
 * store numbers them), row-value keyset comparisons, and the visibility rules compiled to
 * predicates that an index answers. Identifiers come only from code, never from requests.
 */
export interface Compiled {
  sql: string;
  /** Builds the parameters in placeholder order. */
  params: (args: {
    workspaceId: string;
    viewer: Viewer;
    after?: readonly [string, string] | null;
    id?: string;
    limit?: number;
    conditions?: readonly ListCondition[];
  }) => unknown[];
}

export type Param = (viewer: Viewer) => unknown;

/** A rule as a predicate on the rows of the table named `alias` (the list's own: `t`). */
export function visibilityPredicate(
  rule: VisibilityRule,
  alias = 't',
): { sql: string; params: Param[] } {
  if (rule === 'all') return { sql: '', params: [] };
  if (rule === 'none') return { sql: ' AND 1 = 0', params: [] };
  if (rule === 'invoiceOfSupplier') {
    return {
      sql:
        ` AND (${alias}.supplier_ref = ? OR (${alias}.supplier_ref IS NULL AND EXISTS (SELECT 1 FROM invoice_lines l` +
        ` WHERE l.invoice_id = ${alias}.id AND l.supplier_ref = ?)))`,
      params: [(v) => v.supplierCode, (v) => v.supplierCode],
    };
  }
  if (rule === 'lineOfSupplier') {
    // A line of its supplier on an invoice of another supplier is on an invoice it cannot read.
    return {
      sql:
        ` AND ${alias}.supplier_ref = ? AND EXISTS (SELECT 1 FROM invoices i WHERE i.id = ${alias}.invoice_id` +
        ` AND (i.supplier_ref = ? OR i.supplier_ref IS NULL))`,
      params: [(v) => v.supplierCode, (v) => v.supplierCode],
    };
  }
  if (rule === 'supplierOfWorker') {
    return {
      sql: ` AND ${alias}.code IN (SELECT a.supplier_ref FROM assignments a WHERE a.workspace_id = ${alias}.workspace_id AND a.worker_id = ?)`,
      params: [(v) => v.workerId],
    };
  }
  return {
    sql: ` AND ${alias}.${rule.column} = ?`,
    params: [rule.is === 'worker' ? (v) => v.workerId : (v) => v.supplierCode],
  };
}

export function ruleFor(source: ResourceSource, viewer: Viewer): VisibilityRule {
  return viewer.role === 'staff' ? 'all' : source.visibility[viewer.role];
}

function selectList(source: ResourceSource): string {
  return source.columns.map((c) => `t.${c}`).join(', ');
}

/**
 * Compiled statements depend only on the source, the viewer's role, the order and whether a
 * cursor is given, never on values: each shape is built once and reused by every request.
 */
const compiledShapes = new WeakMap<ResourceSource, Map<string, Compiled>>();

function memo(source: ResourceSource, key: string, build: () => Compiled): Compiled {
  let shapes = compiledShapes.get(source);
  if (!shapes) compiledShapes.set(source, (shapes = new Map()));
  let compiled = shapes.get(key);
  if (!compiled) shapes.set(key, (compiled = build()));
  return compiled;
}

/**
 * A filter's predicate (DESIGN §4.15). A supplier is named by its id and matched by its code, which
 * one lookup by the suppliers' primary key gives before the rows are read, among the suppliers the
 * viewer can list: the id of another is no supplier, so that the database never walks records of
 * a supplier the viewer cannot read, and the answer's time says nothing of them.
 */
function conditionSql(condition: ListCondition, viewer: Viewer): string {
  switch (condition.is) {
    case 'in':
      return ` AND t.${condition.column} IN (${valuesOf(condition)
        .map(() => '?')
        .join(', ')})`;
    case 'equal':
      return ` AND t.${condition.column} = ?`;
    case 'supplier':
      return ` AND t.${condition.column} = (SELECT s.code FROM suppliers s WHERE s.id = ? AND s.workspace_id = ?${listableSuppliers(viewer).sql})`;
    case 'atLeast':
      return ` AND t.${condition.column} >= ?`;
    case 'atMost':
      return ` AND t.${condition.column} <= ?`;
    case 'below':
      return ` AND t.${condition.column} < ?`;
  }
}

/** An `in` condition's values: as many placeholders as there are (part of the statement's shape). */
const valuesOf = (condition: ListCondition) => condition.value.split(',');

function conditionParams(condition: ListCondition, workspaceId: string, viewer: Viewer): unknown[] {
  if (condition.is === 'in') return valuesOf(condition);
  if (condition.is !== 'supplier') return [condition.value];
  return [condition.value, workspaceId, ...listableSuppliers(viewer).params.map((p) => p(viewer))];
}

/** The suppliers a viewer can list, as a predicate on `suppliers s`. */
function listableSuppliers(viewer: Viewer) {
  return visibilityPredicate(ruleFor(SUPPLIERS, viewer), 's');
}

const SUPPLIERS = { table: 'suppliers', visibility: SUPPLIER_VISIBILITY, columns: [] };

function buildListPageSql(
  source: ResourceSource,
  viewer: Viewer,
  order: Order,
  hasAfter: boolean,
  conditions: readonly ListCondition[],
): Compiled {
  const vis = visibilityPredicate(ruleFor(source, viewer));
  const cmp = order === 'asc' ? '>' : '<';
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const rows =
    `SELECT ${selectList(source)} FROM ${source.table} t WHERE t.workspace_id = ?${vis.sql}` +
    conditions.map((c) => conditionSql(c, viewer)).join('');
  const page =
    (hasAfter ? ` AND (t.created_at, t.id) ${cmp} (?, ?)` : '') +
    ` ORDER BY t.created_at ${dir}, t.id ${dir} LIMIT ?`;
  // Records named by id (at most MAX_IDS) are found by primary key first, then ordered: given the
  // page's order and limit, both planners would rather walk the page's index, the whole
  // workspace, filtering ids. A materialized CTE keeps them apart.
  const sql = conditions.some((c) => c.is === 'in')
    ? `WITH named AS MATERIALIZED (${rows}) SELECT ${selectList(source)} FROM named t WHERE 1 = 1${page}`
    : rows + page;
  return {
    sql,
    params: ({ workspaceId, viewer: v, after, limit, conditions: given = [] }) => [
      workspaceId,
      ...vis.params.map((p) => p(v)),
      ...given.flatMap((c) => conditionParams(c, workspaceId, v)),
      ...(hasAfter && after ? [after[0], after[1]] : []),
      limit,
    ],
  };
}

function buildGetVisibleSql(source: ResourceSource, viewer: Viewer): Compiled {
  const vis = visibilityPredicate(ruleFor(source, viewer));
  return {
    sql: `SELECT ${selectList(source)} FROM ${source.table} t WHERE t.id = ? AND t.workspace_id = ?${vis.sql}`,
    params: ({ workspaceId, viewer: v, id }) => [id, workspaceId, ...vis.params.map((p) => p(v))],
  };
}

export function timesheetEntriesSql(columns: readonly string[]): string {
  return `SELECT ${columns.map((c) => `e.${c}`).join(', ')} FROM time_entries e WHERE e.timesheet_id = ? ORDER BY e.created_at ASC, e.id ASC LIMIT ?`;
}

export function invoiceLinesSql(
  columns: readonly string[],
  bySupplier: boolean,
): { rows: string; count: string } {
  const where = `l.invoice_id = ?${bySupplier ? ' AND l.supplier_ref = ?' : ''}`;
  return {
    rows: `SELECT ${columns.map((c) => `l.${c}`).join(', ')} FROM invoice_lines l WHERE ${where} ORDER BY l.created_at ASC, l.id ASC LIMIT ?`,
    count: `SELECT COUNT(*) AS n FROM invoice_lines l WHERE ${where}`,
  };
}

/**
 * A list page's statement; its shape depends on which filters are given, never on their values
 * (an `in` condition's count of values aside: at most MAX_IDS shapes).
 */
export function listPageSql(
  source: ResourceSource,
  viewer: Viewer,
  order: Order,
  hasAfter: boolean,
  conditions: readonly ListCondition[] = [],
): Compiled {
  const shape = conditions
    .map((c) => `${c.is}:${c.column}${c.is === 'in' ? `:${valuesOf(c).length}` : ''}`)
    .join(',');
  return memo(source, `list:${viewer.role}:${order}:${hasAfter}:${shape}`, () =>
    buildListPageSql(source, viewer, order, hasAfter, conditions),
  );
}

export function getVisibleSql(source: ResourceSource, viewer: Viewer): Compiled {
  return memo(source, `get:${viewer.role}`, () => buildGetVisibleSql(source, viewer));
}
