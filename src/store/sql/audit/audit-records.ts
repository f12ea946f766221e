import { insertSql } from '../../dialect.js';
import { auditCheckReads, type AuditCheckReads } from './audit-check-reads.js';
import { columnNames } from '../../table.js';
import {
  AUDIT_CHAINS_TABLE,
  AUDIT_EVENTS_TABLE,
  AUDIT_SET_WORKERS_TABLE,
  MS_PER_DAY,
} from './audit-tables.js';

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
  /** The set of records it revealed (a digest of them), null when it revealed none. */
  revealedSet: string | null;
  /** The event's canonical JSON, the bytes its hash covers with `prev`. */
  event: string;
  prev: string;
  hash: string;
}

/** An event to append: as stored, and the workers its set names (for "who saw this worker"). */
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

/** The access trail's store part (DESIGN §4.17), both stores. */
export interface AuditRecords extends AuditCheckReads {
  startAuditChain(chain: AuditChain): Promise<void>;
  /**
   * Appends events of one chain, in order; the workers of their sets first (once a day per set
   * and workspace), so no event is ever without them.
   */
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

/**
 * Rows a statement inserts at most (well under SQLite's and PostgreSQL's parameter limits), and
 * every chunk is a power of two up to it (issue 56): a batch is as large as the requests of the
 * last quarter second, so chunks of any size made a new statement for nearly every batch, which
 * SQLite's writer kept prepared (one statement per size up to 500 rows held 119 MB) and
 * PostgreSQL's placeholder cache kept as text. Nine shapes per table now, 0.3 MB prepared.
 */
export const ROWS_PER_INSERT = 256;

/** The chunks a batch of `rows` is written in: the largest power of two that fits, each time. */
export function chunkSizes(rows: number): number[] {
  const sizes: number[] = [];
  for (let left = rows; left > 0;) {
    let size = ROWS_PER_INSERT;
    while (size > left) size /= 2;
    sizes.push(size);
    left -= size;
  }
  return sizes;
}
/** Sets whose workers this process wrote, remembered (then forgotten all at once) up to this many. */
const KNOWN_SETS = 100_000;
/** A set's workers, once per (workspace, day, set): repeats of the same answer write nothing. */
const SET_KEY = ['workspace_id', 'worker_id', 'day', 'set_id'];

const EVENT_COLUMNS = columnNames(AUDIT_EVENTS_TABLE);
const SET_WORKER_COLUMNS = columnNames(AUDIT_SET_WORKERS_TABLE);

/** A worker's page of at most this many events is chosen by places before it is read. */
const CHOSEN_FIRST = 1000;
const NEWEST_FIRST = 'e.at DESC, e.chain_id DESC, e.seq DESC';

const toEvent = (row: Row): StoredAuditEvent => ({
  chainId: String(row.chain_id),
  seq: Number(row.seq),
  at: Number(row.at),
  workspaceId: row.workspace_id === null ? null : String(row.workspace_id),
  clientId: row.client_id === null ? null : String(row.client_id),
  operation: row.operation === null ? null : String(row.operation),
  revealedSet: row.revealed_set === null ? null : String(row.revealed_set),
  event: String(row.event),
  prev: String(row.prev),
  hash: String(row.hash),
});

async function insertChunked(
  sql: AuditSql,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  ignoreKey?: readonly string[],
): Promise<void> {
  let start = 0;
  for (const size of chunkSizes(rows.length)) {
    const chunk = rows.slice(start, (start += size));
    await sql.run(insertSql(table, columns, size, ignoreKey, 'ignore'), chunk.flat());
  }
}

/** The filters of a query as SQL over `e` (audit_events), and `s` (audit_set_workers) for a worker. */
function whereOf(query: AuditQuery): { from: string; where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  let from = 'audit_events e';
  const at = 'e.at';
  if (query.workerId !== undefined) {
    // The sets naming the worker, each day's, then the events of that day that revealed the set.
    from = `audit_set_workers s JOIN audit_events e ON e.revealed_set = s.set_id
      AND e.at >= CAST(s.day AS BIGINT) * ${MS_PER_DAY} AND e.at < CAST(s.day + 1 AS BIGINT) * ${MS_PER_DAY}
      AND e.workspace_id = s.workspace_id`;
    const workspaces =
      query.workspaceId === undefined ? (query.workspaceIds ?? []) : [query.workspaceId];
    where.push(
      workspaces.length === 0
        ? '1 = 0'
        : `s.workspace_id IN (${workspaces.map(() => '?').join(', ')})`,
      's.worker_id = ?',
    );
    params.push(...workspaces, query.workerId);
    if (query.since !== undefined) {
      where.push('s.day >= ?');
      params.push(Math.floor(query.since / MS_PER_DAY));
    }
    // The sets of days after the page's end (or the period's) hold none of its events.
    const last = Math.min(query.until ?? Infinity, query.before?.[0] ?? Infinity);
    if (last !== Infinity) {
      where.push('s.day <= ?');
      params.push(Math.floor(last / MS_PER_DAY));
    }
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
  const knownSets = new Set<string>();
  return {
    ...auditCheckReads(sql),
    async startAuditChain(chain) {
      await sql.run(insertSql(AUDIT_CHAINS_TABLE.name, columnNames(AUDIT_CHAINS_TABLE), 1), [
        chain.chainId,
        chain.startedAt,
        chain.anchor,
        chain.firstSeq,
      ]);
    },
    async appendAuditEvents(events) {
      const setWorkers: unknown[][] = [];
      const written: string[] = [];
      for (const e of events) {
        if (e.workspaceId === null || e.revealedSet === null || e.workers.length === 0) continue;
        const day = Math.floor(e.at / MS_PER_DAY);
        const key = `${e.workspaceId} ${day} ${e.revealedSet}`;
        if (knownSets.has(key)) continue;
        knownSets.add(key);
        written.push(key);
        for (const worker of new Set(e.workers))
          setWorkers.push([e.workspaceId, worker, day, e.revealedSet]);
      }
      try {
        await insertChunked(
          sql,
          AUDIT_SET_WORKERS_TABLE.name,
          SET_WORKER_COLUMNS,
          setWorkers,
          SET_KEY,
        );
      } catch (error) {
        // Not written: written again with the batch, when it is tried again.
        for (const key of written) knownSets.delete(key);
        throw error;
      }
      if (knownSets.size > KNOWN_SETS) knownSets.clear();
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
          e.revealedSet,
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
      const filtered = `FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
      // A worker's events are found through its sets, then ordered. A page of a few (the API's)
      // is chosen by its events' places alone, then only its events are read whole; a page of
      // thousands (the CLI's) is read in one pass: 50 of the busiest worker's 12,587 events over
      // 10 million in 137 ms (163 in one pass), 10,000 in 191-257 ms (248-367 chosen first).
      const rows = await sql.all(
        query.workerId === undefined || query.limit > CHOSEN_FIRST
          ? `SELECT e.* ${filtered} ORDER BY ${NEWEST_FIRST} LIMIT ?`
          : `SELECT e.* FROM audit_events e WHERE (e.chain_id, e.seq) IN
              (SELECT e.chain_id, e.seq ${filtered} ORDER BY ${NEWEST_FIRST} LIMIT ?)
            ORDER BY ${NEWEST_FIRST}`,
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
      // The sets of days before `before`'s own: no event kept can name them.
      await sql.run('DELETE FROM audit_set_workers WHERE day < ?', [
        Math.floor(before / MS_PER_DAY),
      ]);
      return removed;
    },
  };
}
