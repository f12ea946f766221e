import type { AuditCheckReads, MinuteRow } from '../store/sql/audit/audit-check-reads.js';
import type { StoredAuditEvent } from '../store/sql/audit/audit-records.js';
import { MS_PER_MINUTE } from '../store/sql/audit/audit-tables.js';

/** What of an event its minute row must say: what a search finds it by. */
export interface FoundBy {
  clientId: string | null;
  operation: string | null;
  workers: readonly string[];
}

/** Whether a minute row's list (a JSON array, or null for any) holds `value`. */
function lists(list: string | null, value: string): boolean {
  if (list === null) return true;
  try {
    const values: unknown = JSON.parse(list);
    return Array.isArray(values) && values.includes(value);
  } catch {
    return false;
  }
}

/**
 * Searches find events through the minute rows (`audit_minutes`): each event must lie in exactly
 * one row of its chain, workspace and minute (none would hide it from every search, two would show
 * it twice), and that row must list its client, operation and workers (else a search by them
 * passes over it). A row that finds nothing, or lists more than its events hold, changes nothing
 * a search returns: searches filter the events themselves. Walked beside a chain's events, in
 * order of places: the rows whose ranges begin by the event's place are read, those ended dropped.
 */
export class MinuteCover {
  private open: MinuteRow[] = [];
  /** Rows beginning before the first kept place may still reach into it: all are read. */
  private readUpTo = Number.MIN_SAFE_INTEGER;

  constructor(
    private readonly records: AuditCheckReads,
    private readonly chainId: string,
    private readonly firstSeq: number,
  ) {}

  /** Reads the rows beginning up to `upToSeq` (the end of the page of events being walked). */
  async readTo(upToSeq: number): Promise<void> {
    if (upToSeq <= this.readUpTo) return;
    const rows = await this.records.auditChainMinutes(this.chainId, this.readUpTo, upToSeq);
    this.open.push(...rows.filter((row) => row.lastSeq >= this.firstSeq));
    this.readUpTo = upToSeq;
  }

  /** What is wrong with the event's minute row, or null when exactly one holds it as it is. */
  check(stored: StoredAuditEvent, found: FoundBy): string | null {
    this.open = this.open.filter((row) => row.lastSeq >= stored.seq);
    const workspaceId = stored.workspaceId ?? '';
    const minute = Math.floor(stored.at / MS_PER_MINUTE);
    const rows = this.open.filter(
      (row) =>
        row.firstSeq <= stored.seq && row.workspaceId === workspaceId && row.minute === minute,
    );
    if (rows.length === 0) return 'no minute row of its workspace and minute holds it';
    if (rows.length > 1) return 'more than one minute row of its workspace and minute holds it';
    const [row] = rows;
    if (found.clientId !== null && !lists(row.clients, found.clientId))
      return 'its minute row does not list its client';
    if (found.operation !== null && !lists(row.operations, found.operation))
      return 'its minute row does not list its operation';
    const worker = found.workers.find((w) => !lists(row.workers, w));
    if (worker !== undefined) return `its minute row does not list worker ${worker}`;
    return null;
  }
}
