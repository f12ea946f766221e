import { insertSql } from '../../dialect.js';
import { auditCheckReads, type AuditCheckReads } from './audit-check-reads.js';
import { columnNames } from '../../table.js';
import { minuteRowsOf, SetRows, type EventPlace } from './audit-batch-rows.js';
import { searchAuditEvents, type AuditQuery } from './audit-search.js';
import {
  AUDIT_CHAINS_TABLE,
  AUDIT_EVENTS_TABLE,
  AUDIT_MINUTES_TABLE,
  AUDIT_SETS_TABLE,
  AUDIT_SET_WORKERS_TABLE,
  EVENT_SET,
  MS_PER_DAY,
} from './audit-tables.js';
import { withRecords } from './set-records.js';

/** A row as the store's primitives give it (store.ts imports this part: no import back). */
type Row = Record<string, unknown>;

/** One event as stored: its place in its chain, what queries filter on, the event and its hashes. */
export interface StoredAuditEvent extends EventPlace {
  /**
   * The event's canonical JSON, the bytes its hash covers with `prev`; its records named by set
   * (`"revealed":{"set":id}`) or, written before schema 19, inline. A search's events have their
   * set's records in it (as its canonical JSON with them inline).
   */
  event: string;
  prev: string;
  hash: string;
  /** The records of the set the event names (`audit_sets`), as a chain's walk reads them. */
  records?: string;
}

/**
 * An event to append: as stored, the workers its set names (for "who saw this worker") and, when
 * its JSON names its records by set, their canonical JSON (written once a day per set).
 */
export interface NewAuditEvent extends Omit<StoredAuditEvent, 'records'> {
  workers: readonly string[];
  records?: string | null;
}

export interface AuditChain {
  chainId: string;
  startedAt: number;
  /** The `prev` the first kept event must have. */
  anchor: string;
  /** The first kept event's place. */
  firstSeq: number;
}

export type { AuditQuery } from './audit-search.js';

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

/** A set's rows and a batch's minute rows are written once: their keys. */
const SET_KEY = AUDIT_SETS_TABLE.primaryKey;
const WORKERS_KEY = AUDIT_SET_WORKERS_TABLE.primaryKey;
const MINUTES_KEY = AUDIT_MINUTES_TABLE.primaryKey;

/** The SQL primitives the part runs on (`?` placeholders; one dialect each). */
export interface AuditSql {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /** The statements in one transaction (one commit, all or none), where the store has it. */
  runBatch?(batch: readonly { sql: string; params: readonly unknown[] }[]): Promise<number>;
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
const EVENT_COLUMNS = columnNames(AUDIT_EVENTS_TABLE);
const SET_COLUMNS = columnNames(AUDIT_SETS_TABLE);
const SET_WORKER_COLUMNS = columnNames(AUDIT_SET_WORKERS_TABLE);
const MINUTE_COLUMNS = columnNames(AUDIT_MINUTES_TABLE);

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
  ...(row.set_records === null || row.set_records === undefined
    ? {}
    : { records: String(row.set_records) }),
});

/** An event as readers see it: its set's records in its JSON (what its set id digests). */
const toReadEvent = (row: Row): StoredAuditEvent => {
  const { records, ...event } = toEvent(row);
  return records === undefined ? event : { ...event, event: withRecords(event.event, records) };
};

/** A batch's inserts of `rows`: chunks of the sizes chunkSizes says (each a prepared shape). */
function insertsOf(
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  ignoreKey?: readonly string[],
): { sql: string; params: unknown[] }[] {
  let start = 0;
  return chunkSizes(rows.length).map((size) => ({
    sql: insertSql(table, columns, size, ignoreKey, 'ignore'),
    params: rows.slice(start, (start += size)).flat(),
  }));
}

/**
 * A batch's event rows, each taken once: the same event again (a batch whose commit was made but
 * not acknowledged, a frozen database, tried again) changes nothing, while another event at a
 * place already taken is refused (its `hash` set to NULL, which the column cannot hold), so the
 * batch is refused whole as before.
 */
function eventInserts(rows: readonly unknown[][]): { sql: string; params: unknown[] }[] {
  return insertsOf(AUDIT_EVENTS_TABLE.name, EVENT_COLUMNS, rows).map(({ sql, params }) => ({
    sql: `${sql} ON CONFLICT (${AUDIT_EVENTS_TABLE.primaryKey.join(', ')}) DO UPDATE SET hash = CASE WHEN ${AUDIT_EVENTS_TABLE.name}.hash = excluded.hash THEN excluded.hash END`,
    params,
  }));
}

export function auditRecords(sql: AuditSql): AuditRecords {
  const setRows = new SetRows();
  return {
    ...auditCheckReads(sql),
    async startAuditChain(chain) {
      // Taken once: a start whose commit was made but not acknowledged is tried again.
      const key = AUDIT_CHAINS_TABLE.primaryKey;
      await sql.run(
        insertSql(AUDIT_CHAINS_TABLE.name, columnNames(AUDIT_CHAINS_TABLE), 1, key, 'ignore'),
        [chain.chainId, chain.startedAt, chain.anchor, chain.firstSeq],
      );
    },
    async appendAuditEvents(events) {
      // One transaction where the store has them (group commit: all or none); else the sets and
      // minute rows first, so that no event is ever without them. A batch tried again writes
      // the same rows again, which their keys take once.
      const { sets, setWorkers, forget } = setRows.of(events);
      const statements = [
        ...insertsOf(AUDIT_SETS_TABLE.name, SET_COLUMNS, sets, SET_KEY),
        ...insertsOf(AUDIT_SET_WORKERS_TABLE.name, SET_WORKER_COLUMNS, setWorkers, WORKERS_KEY),
        ...insertsOf(AUDIT_MINUTES_TABLE.name, MINUTE_COLUMNS, minuteRowsOf(events), MINUTES_KEY),
        ...eventInserts(
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
        ),
      ];
      try {
        if (sql.runBatch) await sql.runBatch(statements);
        else for (const { sql: text, params } of statements) await sql.run(text, params);
      } catch (error) {
        // Not written (or not all): written again with the batch, when it is tried again.
        forget();
        throw error;
      }
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
        `SELECT e.*, st.records AS set_records FROM audit_events e ${EVENT_SET}
          WHERE e.chain_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
        [chainId, afterSeq, limit],
      );
      return rows.map(toEvent);
    },
    async listAuditEvents(query) {
      return (await searchAuditEvents(sql, query)).map(toReadEvent);
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
        // Minute rows whose events all went find nothing more.
        await sql.run('DELETE FROM audit_minutes WHERE chain_id = ? AND last_seq < ?', [
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
      for (const table of ['audit_set_workers', 'audit_sets'])
        await sql.run(`DELETE FROM ${table} WHERE day < ?`, [Math.floor(before / MS_PER_DAY)]);
      return removed;
    },
  };
}
