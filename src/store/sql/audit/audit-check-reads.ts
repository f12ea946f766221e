/**
 * What `vms-read audit verify` reads beyond the chains' walk (DESIGN §4.17): events no chain
 * accounts for (a chain's row removed, events before its anchor), each UTC day's sets and their
 * workers ("who saw this worker" reads them), and the chains' heads. Each read is an index range.
 */
import { MINUTE_EVENTS, MS_PER_DAY, MS_PER_MINUTE } from './audit-tables.js';

const MINUTES_PER_DAY = MS_PER_DAY / MS_PER_MINUTE;

type Row = Record<string, unknown>;

interface Sql {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** A chain's head: its last event's place and hash (or its anchor, when retention took them all). */
export interface AuditChainHead {
  chain: string;
  seq: number;
  hash: string;
}

/** A set of revealed records, as an event of one workspace named it on one day. */
export interface DaySet {
  workspaceId: string;
  setId: string;
  /** An event of that day with that set, by its place: what verify names when the set is wrong. */
  chainId: string;
  seq: number;
}

/** A row of `audit_minutes`: a batch's events of one workspace and minute, and what appears. */
export interface MinuteRow {
  workspaceId: string;
  minute: number;
  chainId: string;
  firstSeq: number;
  lastSeq: number;
  /** JSON arrays; null for any (a trail migrated from before schema 19). */
  clients: string | null;
  operations: string | null;
  workers: string | null;
}

/** A row of `audit_set_workers` of one day. */
export interface DaySetWorker {
  workspaceId: string;
  workerId: string;
  setId: string;
}

export interface AuditCheckReads {
  /** Every chain that has events, found by skipping through the key's index (one seek each). */
  auditEventChains(): Promise<string[]>;
  /** Whether a chain holds an event before `seq` (its first kept place). */
  auditEventBefore(chainId: string, seq: number): Promise<boolean>;
  /** The hash of a chain's event at `seq`, or null when there is none. */
  auditHashAt(chainId: string, seq: number): Promise<string | null>;
  /** The next UTC day from `day` on with an event or a set row; null when none is. */
  auditNextDay(day: number): Promise<number | null>;
  /** The sets a day's events named (each with one of its events per chain), by workspace. */
  auditDaySets(day: number): Promise<DaySet[]>;
  /**
   * What says a set's records on `day`: `{"revealed":[…]}`, from its `audit_sets` row or, when it
   * has none (a trail of before schema 19), from the event `set` names; null when neither is.
   */
  auditSetEvent(set: DaySet, day: number): Promise<string | null>;
  /** A chain's minute rows whose ranges begin after `afterSeq` and at or before `upToSeq`. */
  auditChainMinutes(chainId: string, afterSeq: number, upToSeq: number): Promise<MinuteRow[]>;
  /** The day's rows of `audit_set_workers`. */
  auditDaySetWorkers(day: number): Promise<DaySetWorker[]>;
  /** Each chain's head: its last event, or its anchor when it holds none. */
  auditHeads(): Promise<AuditChainHead[]>;
}

export function auditCheckReads(sql: Sql): AuditCheckReads {
  return {
    async auditEventChains() {
      const chains: string[] = [];
      for (;;) {
        const [next] = await sql.all(
          chains.length === 0
            ? 'SELECT chain_id FROM audit_events ORDER BY chain_id LIMIT 1'
            : 'SELECT chain_id FROM audit_events WHERE chain_id > ? ORDER BY chain_id LIMIT 1',
          chains.length === 0 ? [] : [chains[chains.length - 1]],
        );
        if (!next) return chains;
        chains.push(String(next.chain_id));
      }
    },
    async auditEventBefore(chainId, seq) {
      const rows = await sql.all(
        'SELECT seq FROM audit_events WHERE chain_id = ? AND seq < ? LIMIT 1',
        [chainId, seq],
      );
      return rows.length > 0;
    },
    async auditHashAt(chainId, seq) {
      const [row] = await sql.all('SELECT hash FROM audit_events WHERE chain_id = ? AND seq = ?', [
        chainId,
        seq,
      ]);
      return row ? String(row.hash) : null;
    },
    async auditNextDay(day) {
      const [minute] = await sql.all(
        'SELECT MIN(minute) AS minute FROM audit_minutes WHERE minute >= ?',
        [day * MINUTES_PER_DAY],
      );
      const [set] = await sql.all('SELECT MIN(day) AS day FROM audit_set_workers WHERE day >= ?', [
        day,
      ]);
      const days = [
        minute?.minute === null || minute?.minute === undefined
          ? null
          : Math.floor(Number(minute.minute) / MINUTES_PER_DAY),
        set?.day === null || set?.day === undefined ? null : Number(set.day),
      ].filter((d): d is number => d !== null);
      return days.length === 0 ? null : Math.min(...days);
    },
    async auditDaySets(day) {
      const rows = await sql.all(
        `SELECT e.workspace_id, e.revealed_set, e.chain_id, MIN(e.seq) AS seq FROM ${MINUTE_EVENTS}
           WHERE m.minute >= ? AND m.minute < ? AND e.revealed_set IS NOT NULL
            AND e.workspace_id IS NOT NULL
           GROUP BY e.workspace_id, e.revealed_set, e.chain_id`,
        [day * MINUTES_PER_DAY, (day + 1) * MINUTES_PER_DAY],
      );
      return rows.map((row) => ({
        workspaceId: String(row.workspace_id),
        setId: String(row.revealed_set),
        chainId: String(row.chain_id),
        seq: Number(row.seq),
      }));
    },
    async auditSetEvent(set, day) {
      const [stored] = await sql.all(
        'SELECT records FROM audit_sets WHERE day = ? AND set_id = ?',
        [day, set.setId],
      );
      if (stored) return `{"revealed":${String(stored.records)}}`;
      const [row] = await sql.all('SELECT event FROM audit_events WHERE chain_id = ? AND seq = ?', [
        set.chainId,
        set.seq,
      ]);
      return row ? String(row.event) : null;
    },
    async auditChainMinutes(chainId, afterSeq, upToSeq) {
      const rows = await sql.all(
        `SELECT * FROM audit_minutes WHERE chain_id = ? AND first_seq > ? AND first_seq <= ?
          ORDER BY first_seq`,
        [chainId, afterSeq, upToSeq],
      );
      return rows.map((row) => ({
        workspaceId: String(row.workspace_id),
        minute: Number(row.minute),
        chainId: String(row.chain_id),
        firstSeq: Number(row.first_seq),
        lastSeq: Number(row.last_seq),
        clients: row.clients === null ? null : String(row.clients),
        operations: row.operations === null ? null : String(row.operations),
        workers: row.workers === null ? null : String(row.workers),
      }));
    },
    async auditDaySetWorkers(day) {
      const rows = await sql.all(
        'SELECT workspace_id, worker_id, set_id FROM audit_set_workers WHERE day = ?',
        [day],
      );
      return rows.map((row) => ({
        workspaceId: String(row.workspace_id),
        workerId: String(row.worker_id),
        setId: String(row.set_id),
      }));
    },
    async auditHeads() {
      const chains = await sql.all(
        'SELECT chain_id, anchor, first_seq FROM audit_chains ORDER BY started_at, chain_id',
        [],
      );
      const heads: AuditChainHead[] = [];
      for (const chain of chains) {
        const [last] = await sql.all(
          'SELECT seq, hash FROM audit_events WHERE chain_id = ? ORDER BY seq DESC LIMIT 1',
          [chain.chain_id],
        );
        const chainId = String(chain.chain_id);
        if (last) heads.push({ chain: chainId, seq: Number(last.seq), hash: String(last.hash) });
        else if (Number(chain.first_seq) > 1)
          heads.push({
            chain: chainId,
            seq: Number(chain.first_seq) - 1,
            hash: String(chain.anchor),
          });
      }
      return heads;
    },
  };
}
