/**
 * Who besides staff reads each record, and what a load changed of it (DESIGN §4.13): the feed of
 * a worker or billing entity gets a tombstone when a record it could read left it (deleted, or
 * moved out of its visibility), and a supplier a worker newly reaches through an assignment
 * arrives in the worker's feed, without the supplier counting as changed for anyone else (which
 * would tell a worker that a colleague was engaged at its supplier). A billing entity reads
 * invoices through its audience rows alone: each of an invoice's readers gets a read row at the
 * version what it reads of the invoice (its header, its own supplier's lines) last changed, so
 * another supplier's line leaves it nothing (DESIGN §4.16).
 *
 * An audience is `worker:<id>` or `supplier:<code>`, the readers a worker token or a billing
 * entity token stands for. Which records each reads mirrors the visibility the resource lists
 * declare (src/operations; test/store/audiences.test.ts holds the two equal): by the record's own
 * columns, except suppliers, which workers reach through their assignments, and consolidated
 * invoices (no supplier of their own), which billing entities reach through their lines.
 */
import type { FeedType } from '../sql/change-log.js';
import type { Row } from '../sink.js';
import type { WriteSession } from './write-session.js';

/** The column naming the worker, and the one naming the supplier's code, that read a record. */
export const AUDIENCE_COLUMNS: Record<FeedType, { worker?: string; supplier?: string }> = {
  supplier: { supplier: 'code' },
  worker: { worker: 'id' },
  assignment: { worker: 'worker_id', supplier: 'supplier_ref' },
  timesheet: { worker: 'worker_id' },
  expense: { worker: 'worker_id', supplier: 'supplier_ref' },
  invoice: { supplier: 'supplier_ref' },
  approval_status: { worker: 'worker_id', supplier: 'supplier_ref' },
};

export const workerAudience = (id: unknown) => `worker:${String(id)}`;
export const supplierAudience = (code: unknown) => `supplier:${String(code)}`;

/** The audiences of a record by its own columns (a consolidated invoice's lines: see `lineSuppliers`). */
export function ownAudiences(type: FeedType, row: Row): string[] {
  const { worker, supplier } = AUDIENCE_COLUMNS[type];
  const audiences: string[] = [];
  if (worker && row[worker] !== null && row[worker] !== undefined)
    audiences.push(workerAudience(row[worker]));
  if (supplier && row[supplier] !== null && row[supplier] !== undefined)
    audiences.push(supplierAudience(row[supplier]));
  return audiences;
}

const placeholders = (n: number) => Array<string>(n).fill('?').join(', ');

export type RemovalReason = 'deleted' | 'not_visible';

/** A record and who could read it. */
export interface Audienced {
  workspaceId: string;
  type: FeedType;
  id: string;
  audiences: readonly string[];
}

const AUDIENCE_COLUMNS_WRITTEN = [
  'workspace_id',
  'audience',
  'type',
  'id',
  'version',
  'reason',
  'removed_at',
] as const;
const AUDIENCE_KEY = ['workspace_id', 'audience', 'type', 'id'];

/**
 * The audience rows of one load, written at its version in its transaction. A tombstone is kept
 * only while its audience cannot read the record: a record that comes back into an audience's
 * view (moved back, inserted again) takes its tombstone away, and the audience reads it through
 * the tables again.
 */
export class AudienceLog {
  constructor(
    private readonly session: WriteSession,
    private readonly version: number,
    /** The load's clock: when its tombstones were made, for the horizon. */
    private readonly clock: string,
  ) {}

  /** Each record's audiences can no longer read it: a tombstone each. */
  async removed(records: readonly Audienced[], reason: RemovalReason): Promise<void> {
    await this.write(records, reason);
  }

  /**
   * What each record's audiences read of it changed at this version, beyond its change log row
   * (a supplier a worker reaches now, an invoice's header or a billing entity's lines of it):
   * a read row each, in place of any tombstone.
   */
  async read(records: readonly Audienced[]): Promise<void> {
    await this.write(records, null);
  }

  private async write(records: readonly Audienced[], reason: RemovalReason | null) {
    const rows = records.flatMap((r) =>
      r.audiences.map((a) => [
        r.workspaceId,
        a,
        r.type,
        r.id,
        this.version,
        reason,
        reason === null ? null : this.clock,
      ]),
    );
    for (let start = 0; start < rows.length; start += 500)
      await this.session.insertRows(
        'audience_changes',
        AUDIENCE_COLUMNS_WRITTEN,
        rows.slice(start, start + 500),
        AUDIENCE_KEY,
      );
  }

  /** These audiences read the records through the tables now: their tombstones go. */
  async readable(records: readonly Audienced[]): Promise<void> {
    const held = records.filter((r) => r.audiences.length > 0);
    if (held.length === 0) return;
    const type = held[0].type;
    // Most records never had a tombstone: one look by id finds the few that have.
    const found = await this.session.all(
      `SELECT workspace_id, audience, id FROM audience_changes WHERE type = ? AND id IN (${placeholders(held.length)}) AND reason IS NOT NULL`,
      [type, ...held.map((r) => r.id)],
    );
    if (found.length === 0) return;
    const audiencesOf = new Map(held.map((r) => [r.id, new Set(r.audiences)]));
    for (const row of found) {
      if (!audiencesOf.get(String(row.id))?.has(String(row.audience))) continue;
      await this.session.run(
        'DELETE FROM audience_changes WHERE workspace_id = ? AND audience = ? AND type = ? AND id = ?',
        [row.workspace_id, row.audience, type, row.id],
      );
    }
  }

  /**
   * A record changed from `before` to `after` audiences: those that lost it get a tombstone,
   * those that gain it lose theirs.
   */
  async moved(
    record: Omit<Audienced, 'audiences'>,
    before: readonly string[],
    after: readonly string[],
  ) {
    const lost = before.filter((a) => !after.includes(a));
    const gained = after.filter((a) => !before.includes(a));
    if (lost.length > 0) await this.removed([{ ...record, audiences: lost }], 'not_visible');
    if (gained.length > 0) await this.readable([{ ...record, audiences: gained }]);
  }
}

/**
 * The billing entities that read an invoice (DESIGN §4.4): its supplier's, or on a consolidated
 * invoice those of its lines (`lines`, from `lineSuppliers`).
 */
export function invoiceReaders(invoice: Row, lines: ReadonlyMap<string, string[]>): string[] {
  return invoice.supplier_ref === null
    ? (lines.get(String(invoice.id)) ?? [])
    : ownAudiences('invoice', invoice);
}

/** The supplier codes of a consolidated invoice's lines: the billing entities that read it. */
export async function lineSuppliers(
  session: WriteSession,
  invoiceIds: readonly string[],
): Promise<Map<string, string[]>> {
  const suppliers = new Map<string, string[]>();
  if (invoiceIds.length === 0) return suppliers;
  const rows = await session.all(
    `SELECT DISTINCT invoice_id, supplier_ref FROM invoice_lines WHERE invoice_id IN (${placeholders(invoiceIds.length)}) AND supplier_ref IS NOT NULL`,
    invoiceIds,
  );
  for (const row of rows) {
    const id = String(row.invoice_id);
    suppliers.set(id, [...(suppliers.get(id) ?? []), supplierAudience(row.supplier_ref)]);
  }
  return suppliers;
}

/**
 * Which workers reach which suppliers (a worker reads the suppliers of its assignments), before
 * a load's first change to them and after its last: a pair that ended is a tombstone in the
 * worker's feed, a pair that began is an arrival.
 */
export class SupplierLinks {
  /** `workspace NUL worker NUL code` → whether an assignment linked them before the load. */
  private readonly before = new Map<string, boolean>();

  constructor(private readonly session: WriteSession) {}

  /** Notes the pairs of these assignment rows (old and new) before the load writes them. */
  async touch(rows: readonly Row[]): Promise<void> {
    const pairs: string[] = [];
    for (const row of rows) {
      if (row.worker_id === null || row.supplier_ref === null) continue;
      if (row.worker_id === undefined || row.supplier_ref === undefined) continue;
      const key = [row.workspace_id, row.worker_id, row.supplier_ref].map(String).join('\u0000');
      if (!this.before.has(key) && !pairs.includes(key)) pairs.push(key);
    }
    if (pairs.length === 0) return;
    const linked = await this.linked(pairs);
    for (const key of pairs) this.before.set(key, linked.has(key));
  }

  /** The workers an assignment linked to the supplier `code` before the load, of those noted. */
  workersBefore(workspaceId: string, code: string): string[] {
    const workers: string[] = [];
    for (const [key, was] of this.before) {
      const [workspace, worker, supplier] = key.split('\u0000');
      if (was && workspace === workspaceId && supplier === code) workers.push(worker);
    }
    return workers;
  }

  /** The pairs of `keys` that an assignment stored now links. */
  private async linked(keys: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const byWorkspace = new Map<string, Set<string>>();
    for (const key of keys) {
      const [workspace, worker] = key.split('\u0000');
      byWorkspace.set(workspace, (byWorkspace.get(workspace) ?? new Set()).add(worker));
    }
    for (const [workspace, set] of byWorkspace) {
      const workers = [...set];
      for (let start = 0; start < workers.length; start += 500) {
        const chunk = workers.slice(start, start + 500);
        const rows = await this.session.all(
          `SELECT DISTINCT worker_id, supplier_ref FROM assignments WHERE workspace_id = ? AND worker_id IN (${placeholders(chunk.length)}) AND supplier_ref IS NOT NULL`,
          [workspace, ...chunk],
        );
        for (const row of rows)
          found.add([workspace, row.worker_id, row.supplier_ref].map(String).join('\u0000'));
      }
    }
    return found;
  }

  /** Writes what changed: tombstones for links that ended, arrivals for links that began. */
  async finish(log: AudienceLog): Promise<void> {
    if (this.before.size === 0) return;
    const now = await this.linked([...this.before.keys()]);
    const ended: Audienced[] = [];
    const began: Audienced[] = [];
    for (const [key, was] of this.before) {
      const is = now.has(key);
      if (was === is) continue;
      const [workspaceId, worker, code] = key.split('\u0000');
      const [supplier] = await this.session.all(
        'SELECT id FROM suppliers WHERE workspace_id = ? AND code = ?',
        [workspaceId, code],
      );
      // A supplier deleted by this load: its deletion wrote the worker's tombstone.
      if (!supplier) continue;
      const record = {
        workspaceId,
        type: 'supplier' as const,
        id: String(supplier.id),
        audiences: [workerAudience(worker)],
      };
      (is ? began : ended).push(record);
    }
    await log.read(began);
    await log.removed(ended, 'not_visible');
  }
}
