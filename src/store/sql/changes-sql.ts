import type { ChangesQuery } from '../store.js';
import type { Viewer } from '../visibility.js';
import { ruleFor, visibilityPredicate } from './resource-sql.js';

/**
 * SQL of the change feed (DESIGN §4.11, §4.13), shared by both dialects. Staff see every record
 * of the types their scopes allow: one range of the feed index, where a record its table no
 * longer holds is a deletion. Other roles see only their own records: each type's changes are
 * reached from the records the viewer sees through that type's own visibility index (a worker's
 * timesheets, a supplier's invoices), so a page costs what the viewer can see, not the whole log,
 * and an invisible change is never read at all (nor counted in `hasMore`); beside them, the
 * viewer's audience rows (load/audiences.ts): tombstones of records it could read and cannot any
 * more, suppliers a worker reached through a new assignment, and the invoices a billing entity
 * reads (`readByAudience`). A record shows once, at its latest version.
 */
export function changePositionsSql(query: ChangesQuery): { sql: string; params: unknown[] } {
  const { viewer, workspaceId, after, limit } = query;
  const position = (alias: string) =>
    after ? ` AND (${alias}.version, ${alias}.type, ${alias}.id) > (?, ?, ?)` : '';
  const positionParams = after ? [...after] : [];
  const types = query.sources.map(({ type }) => type);
  const typeList = types.map(() => '?').join(', ');
  if (viewer.role === 'staff') {
    return {
      sql:
        `SELECT c.version AS version, c.type AS type, c.id AS id FROM record_changes c` +
        ` WHERE c.workspace_id = ? AND c.type IN (${typeList})${position('c')}` +
        ' ORDER BY c.version, c.type, c.id LIMIT ?',
      params: [workspaceId, ...types, ...positionParams, limit],
    };
  }
  const params: unknown[] = [];
  const throughTables = query.sources.filter(({ type }) => !readByAudience(viewer, type));
  const parts = throughTables.map(({ type, source }) => {
    const visible = visibilityPredicate(ruleFor(source, viewer));
    params.push(type, workspaceId, ...visible.params.map((p) => p(viewer)), ...positionParams);
    return (
      `SELECT c.version AS version, c.type AS type, c.id AS id, CAST(NULL AS TEXT) AS reason FROM ${source.table} t` +
      ` JOIN record_changes c ON c.type = ? AND c.id = t.id WHERE t.workspace_id = ?${visible.sql}${position('c')}`
    );
  });
  parts.push(
    'SELECT a.version AS version, a.type AS type, a.id AS id, a.reason AS reason FROM audience_changes a' +
      ` WHERE a.workspace_id = ? AND a.audience = ? AND a.type IN (${typeList})${position('a')}`,
  );
  params.push(workspaceId, audienceOf(viewer), ...types, ...positionParams);
  const union = parts.join(' UNION ALL ');
  // Only a worker reaches a record two ways (a supplier: by its change, and by the assignment
  // that linked it): then the latest of the two. Otherwise a viewer's audience row is a
  // tombstone, kept only while the viewer cannot read the record, or a read of a type it does
  // not reach through the tables, so never beside the record's own row.
  const sql =
    viewer.role === 'worker'
      ? `SELECT MAX(version) AS version, type, id, MAX(reason) AS reason FROM (${union}) u GROUP BY type, id ORDER BY 1, 2, 3 LIMIT ?`
      : `SELECT version, type, id, reason FROM (${union}) u ORDER BY version, type, id LIMIT ?`;
  return { sql, params: [...params, limit] };
}

/**
 * A billing entity reads invoices through its audience rows alone (load/audiences.ts): an
 * invoice's change log row moves with every line, of any supplier, and it reads only its own
 * supplier's lines (DESIGN §4.16).
 */
function readByAudience(viewer: Viewer, type: string): boolean {
  return viewer.role === 'billing_entity' && type === 'invoice';
}

/** The audience a viewer other than staff stands for (load/audiences.ts). */
export function audienceOf(viewer: Viewer): string {
  return viewer.role === 'worker'
    ? `worker:${String(viewer.workerId)}`
    : `supplier:${String(viewer.supplierCode)}`;
}

/** The records of one type on a page, by id, as this viewer may read them. */
export function changedRecordsSql(
  source: ChangesQuery['sources'][number]['source'],
  ids: number,
  viewer: Viewer,
): { sql: string; params: unknown[] } {
  const columns = source.columns.map((c) => `t.${c}`).join(', ');
  const visible = visibilityPredicate(ruleFor(source, viewer));
  return {
    sql: `SELECT ${columns} FROM ${source.table} t WHERE t.workspace_id = ? AND t.id IN (${Array(ids).fill('?').join(', ')})${visible.sql}`,
    params: visible.params.map((p) => p(viewer)),
  };
}
