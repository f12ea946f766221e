/**
 * The trail's searches (DESIGN §4.17, issue 59): a search reads the minute rows of its workspace,
 * minutes and values (`audit_minutes`, one per batch, workspace and minute), newest first a
 * window at a time, then the events in their ranges of places, which it filters exactly, and
 * names each event's records from its set (`audit_sets`). Events carry no index of their own.
 */
import { EVENT_SET, MINUTE_EVENTS, MS_PER_DAY, MS_PER_MINUTE } from './audit-tables.js';

type Row = Record<string, unknown>;

interface Sql {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** What the trail's readers ask for, newest first; every filter optional. */
export interface AuditQuery {
  workspaceId?: string;
  /** Events at or after, and before, these instants (ms). */
  since?: number;
  until?: number;
  /**
   * Events that revealed this worker or a record naming it, in `workspaceId`, else in any of
   * `workspaceIds` (ids are unique across workspaces: the CLI's `--worker` alone).
   */
  workerId?: string;
  workspaceIds?: readonly string[];
  clientId?: string;
  operation?: string;
  /** Where the previous page ended: events strictly older than this place. */
  before?: readonly [at: number, chainId: string, seq: number];
  limit: number;
}

/** Minute rows the first window takes; each next window twice as many. */
const FIRST_WINDOW = 64;
const NEWEST_FIRST = 'e.at DESC, e.chain_id DESC, e.seq DESC';
/** `value` as a LIKE pattern finding it in a minute row's JSON array. */
const inList = (value: string): string =>
  `%${JSON.stringify(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

interface Filters {
  where: string[];
  params: unknown[];
}

/** The conditions on minute rows (`m`): which can hold the events searched for. */
function minuteFilters(query: AuditQuery): Filters {
  const where: string[] = [];
  const params: unknown[] = [];
  const listed = (column: string, value: string) => {
    where.push(`(m.${column} IS NULL OR m.${column} LIKE ? ESCAPE '\\')`);
    params.push(inList(value));
  };
  const workspaces =
    query.workspaceId !== undefined
      ? [query.workspaceId]
      : query.workerId !== undefined
        ? (query.workspaceIds ?? [])
        : null;
  if (workspaces !== null)
    where.push(
      workspaces.length === 0
        ? '1 = 0'
        : `m.workspace_id IN (${workspaces.map(() => '?').join(', ')})`,
    );
  if (workspaces !== null) params.push(...workspaces);
  if (query.workerId !== undefined) {
    listed('workers', query.workerId);
    // Only the days whose sets name the worker.
    where.push(`EXISTS (SELECT 1 FROM audit_set_workers s WHERE s.workspace_id = m.workspace_id
      AND s.worker_id = ? AND s.day = m.minute / ${MS_PER_DAY / MS_PER_MINUTE})`);
    params.push(query.workerId);
  }
  if (query.clientId !== undefined) listed('clients', query.clientId);
  if (query.operation !== undefined) listed('operations', query.operation);
  if (query.since !== undefined) {
    where.push('m.minute >= ?');
    params.push(Math.floor(query.since / MS_PER_MINUTE));
  }
  return { where, params };
}

/** The conditions on events (`e`): exactly those searched for. */
function eventFilters(query: AuditQuery): Filters {
  const where: string[] = [];
  const params: unknown[] = [];
  const filter = (condition: string, value: unknown) => {
    where.push(condition);
    params.push(value);
  };
  if (query.workerId !== undefined)
    filter(
      `EXISTS (SELECT 1 FROM audit_set_workers s WHERE s.workspace_id = e.workspace_id
        AND s.worker_id = ? AND s.day = e.at / ${MS_PER_DAY} AND s.set_id = e.revealed_set)`,
      query.workerId,
    );
  if (query.since !== undefined) filter('e.at >= ?', query.since);
  if (query.until !== undefined) filter('e.at < ?', query.until);
  if (query.clientId !== undefined) filter('e.client_id = ?', query.clientId);
  if (query.operation !== undefined) filter('e.operation = ?', query.operation);
  if (query.before) {
    const [at, chainId, seq] = query.before;
    where.push('(e.at < ? OR (e.at = ? AND (e.chain_id < ? OR (e.chain_id = ? AND e.seq < ?))))');
    params.push(at, at, chainId, chainId, seq);
  }
  return { where, params };
}

/** The last minute a query's events can be in (its period's end, its page's), or null. */
function lastMinute(query: AuditQuery): number | null {
  const last = Math.min((query.until ?? Infinity) - 1, query.before?.[0] ?? Infinity);
  return last === Infinity ? null : Math.floor(last / MS_PER_MINUTE);
}

/**
 * The events a query finds, newest first, at most `limit`, as rows of `audit_events` with their
 * set's records (`set_records`). Window by window back in time: the minute the window's last row
 * is in bounds it, so each window reads whole minutes and the events of later minutes came first.
 */
export async function searchAuditEvents(sql: Sql, query: AuditQuery): Promise<Row[]> {
  const minutes = minuteFilters(query);
  const events = eventFilters(query);
  const found: Row[] = [];
  let upTo = lastMinute(query);
  for (let window = FIRST_WINDOW; found.length < query.limit; window *= 2) {
    const bound = upTo === null ? [] : ['m.minute <= ?'];
    const where = [...minutes.where, ...bound];
    const params = [...minutes.params, ...(upTo === null ? [] : [upTo])];
    const [edge] = await sql.all(
      `SELECT m.minute FROM audit_minutes m${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
        ORDER BY m.minute DESC LIMIT 1 OFFSET ${window - 1}`,
      params,
    );
    const from = edge ? [`m.minute >= ?`] : [];
    const all = [...where, ...from, ...events.where];
    const rows = await sql.all(
      `SELECT e.*, st.records AS set_records FROM ${MINUTE_EVENTS} ${EVENT_SET}
        ${all.length ? `WHERE ${all.join(' AND ')}` : ''}
        ORDER BY ${NEWEST_FIRST} LIMIT ?`,
      [
        ...params,
        ...(edge ? [Number(edge.minute)] : []),
        ...events.params,
        query.limit - found.length,
      ],
    );
    found.push(...rows);
    if (!edge) break;
    upTo = Number(edge.minute) - 1;
  }
  return found;
}
