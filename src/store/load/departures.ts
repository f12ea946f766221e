/**
 * What a load does beyond its rows' own tables (DESIGN §4.13): its deletions (deletions.ts),
 * who reads what it changed (audiences.ts: tombstones for readers a record left, arrivals of
 * suppliers workers reach), and the ids it must not bring back (a row not later than a deletion
 * of its id, an entry or line of a timesheet or invoice no longer stored).
 */
import { FEED_TYPE_OF, isFeedTable, type FeedType } from '../sql/change-log.js';
import type { DataTable } from '../schema.js';
import type { Row } from '../sink.js';
import {
  AudienceLog,
  invoiceReaders,
  lineSuppliers,
  ownAudiences,
  SupplierLinks,
  supplierAudience,
} from './audiences.js';
import { DeletionPass, type Deletion } from './deletions.js';
import type { LoadCounts } from './load-counts.js';
import type { WriteSession } from './write-session.js';

/** The record an entry or line belongs to: not stored (deleted), the part is skipped. */
const PARENT_OF: Partial<Record<DataTable, { table: string; column: string }>> = {
  time_entries: { table: 'timesheets', column: 'timesheet_id' },
  invoice_lines: { table: 'invoices', column: 'invoice_id' },
};

const placeholders = (n: number) => Array<string>(n).fill('?').join(', ');

function distinct(rows: readonly Row[], column: string): string[] {
  return [...new Set(rows.map((r) => r[column]).filter((v) => v !== null && v !== undefined))].map(
    String,
  );
}

export class Departures {
  readonly audiences: AudienceLog;
  readonly links: SupplierLinks;
  /** Deleted records are remembered (record_deletions): a new id may be one coming back. */
  deletionsHeld = false;
  /** The workspace of the deletions given to this load, once some are. */
  private deletionsOf: string | null = null;

  constructor(
    private readonly session: WriteSession,
    private readonly version: number,
    private readonly clock: string,
    private readonly counts: Record<DataTable, LoadCounts>,
  ) {
    this.audiences = new AudienceLog(session, version, clock);
    this.links = new SupplierLinks(session);
  }

  async start(): Promise<void> {
    for (const sql of DeletionPass.scratchSql(this.session)) await this.session.run(sql);
    const [held] = await this.session.all('SELECT 1 AS one FROM record_deletions LIMIT 1');
    this.deletionsHeld = held !== undefined;
  }

  /**
   * Who reads the records this load wrote, against who read them (DESIGN §4.13): an audience
   * that lost a record gets a tombstone, one that reads it again (a record moved back, or
   * inserted again after a deletion) loses its tombstone, and the worker-supplier links of
   * assignments are noted before they change (`SupplierLinks`). Invoices: `invoicesWritten`.
   */
  async noteWritten(
    type: FeedType,
    inserted: readonly Row[],
    updated: readonly { old: Row; row: Row }[],
  ): Promise<void> {
    if (this.deletionsHeld && inserted.length > 0)
      // A record deleted before and inserted again (a later row): no longer a deletion.
      await this.session.run(
        `DELETE FROM record_deletions WHERE type = ? AND id IN (${placeholders(inserted.length)})`,
        [type, ...inserted.map((r) => r.id)],
      );
    if (type === 'invoice') return this.invoicesWritten(inserted, updated);
    if (this.deletionsHeld && inserted.length > 0)
      await this.audiences.readable(inserted.map((row) => this.audienced(type, row)));
    for (const { old, row } of updated) {
      const before = ownAudiences(type, old);
      const after = ownAudiences(type, row);
      if (before.join() === after.join()) continue;
      await this.audiences.moved(
        { workspaceId: String(row.workspace_id), type, id: String(row.id) },
        before,
        after,
      );
    }
  }

  /**
   * Invoice headers this load wrote (DESIGN §4.16): every billing entity that reads an invoice
   * reads its header, which changed, so each reads it at this version (in place of any
   * tombstone); one that read it before and does not now gets a tombstone.
   */
  private async invoicesWritten(
    inserted: readonly Row[],
    updated: readonly { old: Row; row: Row }[],
  ): Promise<void> {
    const written = [...inserted, ...updated.map((u) => u.row)];
    const consolidated = [...written, ...updated.map((u) => u.old)].filter(
      (r) => r.supplier_ref === null,
    );
    const lines = await lineSuppliers(this.session, [
      ...new Set(consolidated.map((r) => String(r.id))),
    ]);
    const lost = updated.map(({ old, row }) => {
      const now = invoiceReaders(row, lines);
      return {
        ...this.audienced('invoice', row),
        audiences: invoiceReaders(old, lines).filter((a) => !now.includes(a)),
      };
    });
    await this.audiences.removed(lost, 'not_visible');
    await this.audiences.read(
      written.map((row) => ({
        ...this.audienced('invoice', row),
        audiences: invoiceReaders(row, lines),
      })),
    );
  }

  /**
   * Lines this load added (DESIGN §4.16): the billing entity of a line's supplier reads it when
   * the invoice is its supplier's or consolidated, and then reads the invoice at this version
   * (in place of any tombstone: an invoice deleted and brought back comes back to it with its
   * lines). No one else reads the line: the invoice does not move for them.
   */
  async noteLines(lines: readonly Row[]): Promise<void> {
    const readers = new Map<string, Set<string>>();
    for (const line of lines) {
      if (line.supplier_ref === null || line.supplier_ref === undefined) continue;
      const id = String(line.invoice_id);
      readers.set(id, (readers.get(id) ?? new Set()).add(supplierAudience(line.supplier_ref)));
    }
    if (readers.size === 0) return;
    const invoices = await this.session.all(
      `SELECT id, workspace_id, supplier_ref FROM invoices WHERE id IN (${placeholders(readers.size)})`,
      [...readers.keys()],
    );
    await this.audiences.read(
      invoices.map((invoice) => ({
        ...this.audienced('invoice', invoice as Row),
        audiences: [...(readers.get(String(invoice.id)) ?? [])].filter(
          (a) => invoice.supplier_ref === null || a === supplierAudience(invoice.supplier_ref),
        ),
      })),
    );
  }

  private audienced(type: FeedType, row: Row) {
    return {
      workspaceId: String(row.workspace_id),
      type,
      id: String(row.id),
      audiences: ownAudiences(type, row),
    };
  }

  /**
   * Of rows whose id is not stored, those a deletion already took out that are not later than
   * it (DESIGN §4.13), and entries and lines whose timesheet or invoice is not stored: skipped.
   */
  async deletedBefore(
    table: DataTable,
    rows: readonly Row[],
    stored: ReadonlyMap<string, Row>,
  ): Promise<((row: Row) => boolean) | null> {
    if (!this.deletionsHeld) return null;
    const fresh = rows.filter((r) => !stored.has(String(r.id)));
    if (fresh.length === 0) return null;
    if (isFeedTable(table)) {
      const deleted = new Map(
        (
          await this.session.all(
            `SELECT id, deleted_at FROM record_deletions WHERE type = ? AND id IN (${placeholders(fresh.length)})`,
            [FEED_TYPE_OF[table], ...fresh.map((r) => r.id)],
          )
        ).map((d) => [String(d.id), String(d.deleted_at)]),
      );
      if (deleted.size === 0) return null;
      return (row) => {
        const at = deleted.get(String(row.id));
        return at !== undefined && String(row.updated_at) <= at;
      };
    }
    const parent = PARENT_OF[table];
    if (!parent) return null;
    const ids = distinct(fresh, parent.column);
    const held = new Set(
      (
        await this.session.all(
          `SELECT id FROM ${parent.table} WHERE id IN (${placeholders(ids.length)})`,
          ids,
        )
      ).map((r) => String(r.id)),
    );
    return (row) => !held.has(String(row[parent.column]));
  }

  /** This load's deletions (after all its rows): applied when it finishes. */
  async deleteRecords(workspaceId: string, deletions: readonly Deletion[]): Promise<void> {
    if (deletions.length === 0) return;
    this.deletionsOf = workspaceId;
    await this.session.insertRows(
      'load_deletions',
      ['type', 'id', 'deleted_at', 'file', 'line'],
      deletions.map((d) => [d.type, d.id, d.deleted_at, d.file, d.line]),
      ['type', 'id'],
      'ignore',
    );
  }

  /**
   * The deletions, then the worker-supplier links (`audiences`: false for a load whose change
   * log is built whole at its end). True when a deletion applied.
   */
  async finish(audiences: boolean): Promise<boolean> {
    let changed = false;
    if (this.deletionsOf !== null) {
      const pass = new DeletionPass(
        this.session,
        this.deletionsOf,
        this.version,
        this.clock,
        this.counts,
        this.audiences,
        this.links,
      );
      changed = await pass.apply();
    }
    if (audiences) await this.links.finish(this.audiences);
    return changed;
  }
}
