import { insertSql } from '../../dialect.js';
import { columnNames } from '../../table.js';
import { AUDIT_CHAINS_TABLE, AUDIT_EVENTS_TABLE, AUDIT_REVEALS_TABLE } from './audit-tables.js';

/** A row as the store's primitives give it (store.ts imports this part: no import back). */
type Row = Record<string, unknown>;

/** One event as stored: its place in its chain, what queries filter on, the event and its hashes. */
export interface StoredAuditEvent {
  chainId: string;
  seq: number;
  at: number;
  workspaceId: string | null;
  clientId: string | null;
  operation: string | null;
  /** The event's canonical JSON, the bytes its hash covers with `prev`. */
  event: string;
  prev: string;
  hash: string;
}

/** An event to append: as stored, and the workers it revealed (for "who saw this worker"). */
export interface NewAuditEvent extends StoredAuditEvent {
  workers: readonly string[];
}

export interface AuditChain {
  chainId: string;
  startedAt: number;
  /** The `prev` the first kept event must have. */
  anchor: string;
  /** The first kept event's place. */
  firstSeq: number;
}

/** What the trail's readers ask for, newest first; every filter optional. */
export interface AuditQuery {
  workspaceId?: string;
  /** Events at or after, and before, these instants (ms). */
  since?: number;
  until?: number;
  /** Events that revealed this worker or a record naming it (needs `workspaceId`). */
  workerId?: string;
  clientId?: string;
  operation?: string;
  /** Where the previous page ended: events strictly older than this place. */
  before?: readonly [at: number, chainId: string, seq: number];
  limit: number;
}

/** The access trail's store part (DESIGN §4.17), both stores. */
export interface AuditRecords {
  startAuditChain(chain: AuditChain): Promise<void>;
  /** Appends events of one chain, in order; their reveals first, so none is ever without them. */
  appendAuditEvents(events: readonly NewAuditEvent[]): Promise<void>;
  auditChains(): Promise<AuditChain[]>;
  /** A chain's events after `afterSeq`, in order, at most `limit`. */
  auditChainEvents(chainId: string, afterSeq: number, limit: number): Promise<StoredAuditEvent[]>;
  listAuditEvents(query: AuditQuery): Promise<StoredAuditEvent[]>;
  /**
   * Retention: removes events before `before` (ms), and moves each chain's anchor to the `prev`
   * of its first kept event; how many events went.
   */
  pruneAuditEvents(before: number): Promise<number>;
}

/** The SQL primitives the part runs on (`?` placeholders; one dialect each). */
export interface AuditSql {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
  run(sql: string, params: readonly unknown[]): Promise<number>;
}

/** Rows a statement inserts at most: well under SQLite's and PostgreSQL's parameter limits. */
const ROWS_PER_INSERT = 500;

const EVENT_COLUMNS = columnNames(AUDIT_EVENTS_TABLE);
const REVEAL_COLUMNS = columnNames(AUDIT_REVEALS_TABLE);

const toEvent = (row: Row): StoredAuditEvent => ({
  chainId: String(row.chain_id),
  seq: Number(row.seq),
  at: Number(row.at),
  workspaceId: row.workspace_id === null ? null : String(row.workspace_id),
  clientId: row.client_id === null ? null : String(row.client_id),
  operation: row.operation === null ? null : String(row.operation),
  event: String(row.event),
  prev: String(row.prev),
  hash: String(row.hash),
});

async function insertChunked(
  sql: AuditSql,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    await sql.run(insertSql(table, columns, chunk.length), chunk.flat());
  }
}

/** The filters of a query as SQL over `e` (audit_events), and `r` (audit_reveals) for a worker. */
function whereOf(query: AuditQuery): { from: string; where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  let from = 'audit_events e';
  let at = 'e.at';
  if (query.workerId !== undefined) {
    from = 'audit_reveals r JOIN audit_events e ON e.chain_id = r.chain_id AND e.seq = r.seq';
    where.push('r.workspace_id = ?', 'r.worker_id = ?');
    params.push(query.workspaceId ?? '', query.workerId);
    at = 'r.at';
  } else if (query.workspaceId !== undefined) {
    where.push('e.workspace_id = ?');
    params.push(query.workspaceId);
  }
  const filter = (condition: string, value: unknown) => {
    where.push(condition);
    params.push(value);
  };
  if (query.since !== undefined) filter(`${at} >= ?`, query.since);
  if (query.until !== undefined) filter(`${at} < ?`, query.until);
  if (query.clientId !== undefined) filter('e.client_id = ?', query.clientId);
  if (query.operation !== undefined) filter('e.operation = ?', query.operation);
  if (query.before) {
    const [beforeAt, chainId, seq] = query.before;
    where.push(`(${at} < ? OR (${at} = ? AND (e.chain_id < ? OR (e.chain_id = ? AND e.seq < ?))))`);
    params.push(beforeAt, beforeAt, chainId, chainId, seq);
  }
  return { from, where, params };
}

export function auditRecords(sql: AuditSql): AuditRecords {
  return {
    async startAuditChain(chain) {
      await sql.run(insertSql(AUDIT_CHAINS_TABLE.name, columnNames(AUDIT_CHAINS_TABLE), 1), [
        chain.chainId,
        chain.startedAt,
        chain.anchor,
        chain.firstSeq,
      ]);
    },
    async appendAuditEvents(events) {
      const reveals = events.flatMap((e) =>
        e.workspaceId === null
          ? []
          : [...new Set(e.workers)].map((worker) => [
              e.workspaceId,
              worker,
              e.at,
              e.chainId,
              e.seq,
            ]),
      );
      await insertChunked(sql, AUDIT_REVEALS_TABLE.name, REVEAL_COLUMNS, reveals);
      await insertChunked(
        sql,
        AUDIT_EVENTS_TABLE.name,
        EVENT_COLUMNS,
        events.map((e) => [
          e.chainId,
          e.seq,
          e.at,
          e.workspaceId,
          e.clientId,
          e.operation,
          e.event,
          e.prev,
          e.hash,
        ]),
      );
    },
    async auditChains() {
      const rows = await sql.all('SELECT * FROM audit_chains ORDER BY started_at, chain_id', []);
      return rows.map((row) => ({
        chainId: String(row.chain_id),
        startedAt: Number(row.started_at),
        anchor: String(row.anchor),
        firstSeq: Number(row.first_seq),
      }));
    },
    async auditChainEvents(chainId, afterSeq, limit) {
      const rows = await sql.all(
        'SELECT * FROM audit_events WHERE chain_id = ? AND seq > ? ORDER BY seq LIMIT ?',
        [chainId, afterSeq, limit],
      );
      return rows.map(toEvent);
    },
    async listAuditEvents(query) {
      const { from, where, params } = whereOf(query);
      const at = query.workerId !== undefined ? 'r.at' : 'e.at';
      const rows = await sql.all(
        `SELECT e.* FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
          ORDER BY ${at} DESC, e.chain_id DESC, e.seq DESC LIMIT ?`,
        [...params, query.limit],
      );
      return rows.map(toEvent);
    },
    async pruneAuditEvents(before) {
      let removed = 0;
      for (const chain of await this.auditChains()) {
        // A chain goes from its start: what is removed is the events before the first one at or
        // after `before`, or all of them; the chain's anchor becomes what the next kept (or next
        // written) event's `prev` is, so that it still verifies.
        const [kept] = await sql.all(
          'SELECT seq, prev FROM audit_events WHERE chain_id = ? AND at >= ? ORDER BY seq LIMIT 1',
          [chain.chainId, before],
        );
        const [last] = kept
          ? []
          : await sql.all(
              'SELECT seq, hash FROM audit_events WHERE chain_id = ? ORDER BY seq DESC LIMIT 1',
              [chain.chainId],
            );
        if (!kept && !last) continue;
        const firstSeq = kept ? Number(kept.seq) : Number(last.seq) + 1;
        if (firstSeq <= chain.firstSeq) continue;
        const anchor = kept ? String(kept.prev) : String(last.hash);
        await sql.run('DELETE FROM audit_reveals WHERE chain_id = ? AND seq < ?', [
          chain.chainId,
          firstSeq,
        ]);
        removed += await sql.run('DELETE FROM audit_events WHERE chain_id = ? AND seq < ?', [
          chain.chainId,
          firstSeq,
        ]);
        await sql.run('UPDATE audit_chains SET anchor = ?, first_seq = ? WHERE chain_id = ?', [
          anchor,
          firstSeq,
          chain.chainId,
        ]);
      }
      return removed;
    },
  };
}
