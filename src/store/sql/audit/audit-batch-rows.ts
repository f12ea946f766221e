/**
 * The rows a batch of events writes beside them (issue 59): each set's records and workers once a
 * day, and the batch's minute rows, what searches find its events by (audit-tables.ts).
 */
import { MS_PER_DAY, MS_PER_MINUTE } from './audit-tables.js';

/** An event's place in its chain and what searches find it by. */
export interface EventPlace {
  chainId: string;
  seq: number;
  at: number;
  workspaceId: string | null;
  clientId: string | null;
  operation: string | null;
  /** The set of records it revealed (a digest of them), null when it revealed none. */
  revealedSet: string | null;
}

/** What the rows are made from: an event's place, search columns and its set's contents. */
export interface BatchEvent extends EventPlace {
  /** The set's records' canonical JSON, when the event names them by set (written once a day). */
  records?: string | null;
  workers: readonly string[];
}

interface MinuteRow {
  workspaceId: string;
  minute: number;
  chainId: string;
  firstSeq: number;
  lastSeq: number;
  clients: Set<string>;
  operations: Set<string>;
  workers: Set<string>;
}

const listOf = (values: Set<string>): string => JSON.stringify([...values].sort());

/**
 * A batch's minute rows, as `audit_minutes` columns: one per workspace ('' for none) and UTC
 * minute of its events, over the places they hold, with the clients, operations and workers that
 * appear there. A batch's events are of one chain; a row's range may take in another minute's
 * events of the batch, which a search's own filters leave out.
 */
export function minuteRowsOf(events: readonly BatchEvent[]): unknown[][] {
  const rows = new Map<string, MinuteRow>();
  for (const e of events) {
    const workspaceId = e.workspaceId ?? '';
    const minute = Math.floor(e.at / MS_PER_MINUTE);
    const key = `${workspaceId}\t${minute}\t${e.chainId}`;
    let row = rows.get(key);
    if (!row)
      rows.set(
        key,
        (row = {
          workspaceId,
          minute,
          chainId: e.chainId,
          firstSeq: e.seq,
          lastSeq: e.seq,
          clients: new Set(),
          operations: new Set(),
          workers: new Set(),
        }),
      );
    if (e.seq < row.firstSeq) row.firstSeq = e.seq;
    if (e.seq > row.lastSeq) row.lastSeq = e.seq;
    if (e.clientId !== null) row.clients.add(e.clientId);
    if (e.operation !== null) row.operations.add(e.operation);
    if (e.workspaceId !== null) for (const worker of e.workers) row.workers.add(worker);
  }
  return [...rows.values()].map((row) => [
    row.workspaceId,
    row.minute,
    row.chainId,
    row.firstSeq,
    row.lastSeq,
    listOf(row.clients),
    listOf(row.operations),
    listOf(row.workers),
  ]);
}

/** Sets whose rows this process wrote, remembered (then forgotten all at once) up to this many. */
const KNOWN_SETS = 100_000;

/**
 * Each set's rows once a day: its records (`audit_sets`) and, in a workspace, its workers
 * (`audit_set_workers`). Repeats of the same answer write nothing; `forget` undoes a batch's
 * remembering when it was not written.
 */
export class SetRows {
  private readonly known = new Set<string>();

  of(events: readonly BatchEvent[]): {
    sets: unknown[][];
    setWorkers: unknown[][];
    forget: () => void;
  } {
    const sets: unknown[][] = [];
    const setWorkers: unknown[][] = [];
    const remembered: string[] = [];
    const remember = (key: string): boolean => {
      if (this.known.has(key)) return false;
      this.known.add(key);
      remembered.push(key);
      return true;
    };
    for (const e of events) {
      if (e.revealedSet === null) continue;
      const day = Math.floor(e.at / MS_PER_DAY);
      if (e.records != null && remember(`${day} ${e.revealedSet}`))
        sets.push([day, e.revealedSet, e.records]);
      if (e.workspaceId === null || e.workers.length === 0) continue;
      if (remember(`${e.workspaceId} ${day} ${e.revealedSet}`))
        for (const worker of new Set(e.workers))
          setWorkers.push([e.workspaceId, worker, day, e.revealedSet]);
    }
    if (this.known.size > KNOWN_SETS) this.known.clear();
    return {
      sets,
      setWorkers,
      forget: () => {
        for (const key of remembered) this.known.delete(key);
      },
    };
  }
}
