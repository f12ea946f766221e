import type { ChangesQuery } from '../store.js';
import { ruleFor, visibilityPredicate } from './resource-sql.js';

/**
 * SQL of the change feed (DESIGN §4.11), shared by both dialects. Staff see every record of the
 * types their scopes allow: one range of the feed index. Other roles see only their own records:
 * each type's changes are reached from the records the viewer sees through that type's own
 * visibility index (a worker's timesheets, a supplier's invoices), so a page costs what the
 * viewer can see, not the whole log, and an invisible change is never read at all (nor counted
 * in `hasMore`).
 */
export function changePositionsSql(query: ChangesQuery): { sql: string; params: unknown[] } {
  const { viewer, workspaceId, after, limit } = query;
  const position = after ? ' AND (c.version, c.type, c.id) > (?, ?, ?)' : '';
  const positionParams = after ? [...after] : [];
  if (viewer.role === 'staff') {
    const types = query.sources.map(({ type }) => type);
    return {
      sql:
        `SELECT c.version AS version, c.type AS type, c.id AS id FROM record_changes c` +
        ` WHERE c.workspace_id = ? AND c.type IN (${types.map(() => '?').join(', ')})${position}` +
        ' ORDER BY c.version, c.type, c.id LIMIT ?',
      params: [workspaceId, ...types, ...positionParams, limit],
    };
  }
  const params: unknown[] = [];
  const parts = query.sources.map(({ type, source }) => {
    const visible = visibilityPredicate(ruleFor(source, viewer));
    params.push(type, workspaceId, ...visible.params.map((p) => p(viewer)), ...positionParams);
    return (
      `SELECT c.version AS version, c.type AS type, c.id AS id FROM ${source.table} t` +
      ` JOIN record_changes c ON c.type = ? AND c.id = t.id WHERE t.workspace_id = ?${visible.sql}${position}`
    );
  });
  return {
    sql: `SELECT version, type, id FROM (${parts.join(' UNION ALL ')}) u ORDER BY version, type, id LIMIT ?`,
    params: [...params, limit],
  };
}

/** The records of one type on a page, by id. */
export function changedRecordsSql(
  source: ChangesQuery['sources'][number]['source'],
  ids: number,
): string {
  const columns = source.columns.map((c) => `t.${c}`).join(', ');
  return `SELECT ${columns} FROM ${source.table} t WHERE t.workspace_id = ? AND t.id IN (${Array(ids).fill('?').join(', ')})`;
}
