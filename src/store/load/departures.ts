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
   * assignments are noted before they change (`SupplierLinks`).
   */
  async noteWritten(
    type: FeedType,
    inserted: readonly Row[],
    updated: readonly { old: Row; row: Row }[],
  ): Promise<void> {
    if (this.deletionsHeld && inserted.length > 0) {
      // A record deleted before and inserted again (a later row): no longer a deletion.
      await this.session.run(
        `DELETE FROM record_deletions WHERE type = ? AND id IN (${placeholders(inserted.length)})`,
        [type, ...inserted.map((r) => r.id)],
      );
      await this.audiences.readable(inserted.map((row) => this.audienced(type, row)));
    }
    for (const { old, row } of updated) {
      const before = ownAudiences(type, old);
      const after = ownAudiences(type, row);
      if (before.join() === after.join() && type !== 'invoice') continue;
      const lines =
        type === 'invoice' && (old.supplier_ref === null || row.supplier_ref === null)
          ? ((await lineSuppliers(this.session, [String(row.id)])).get(String(row.id)) ?? [])
          : [];
      await this.audiences.moved(
        { workspaceId: String(row.workspace_id), type, id: String(row.id) },
        old.supplier_ref === null ? [...before, ...lines] : before,
        row.supplier_ref === null ? [...after, ...lines] : after,
      );
    }
  }

  /**
   * Lines this load added: the billing entities of their suppliers read the consolidated
   * invoices they are on, and lose their tombstones of them (an invoice deleted and brought back
   * comes back to them with its lines, which `noteWritten` does not see yet).
   */
  async noteLines(lines: readonly Row[]): Promise<void> {
    if (!this.deletionsHeld) return;
    const readers = new Map<string, Set<string>>();
    for (const line of lines) {
      if (line.supplier_ref === null || line.supplier_ref === undefined) continue;
      const id = String(line.invoice_id);
      readers.set(id, (readers.get(id) ?? new Set()).add(supplierAudience(line.supplier_ref)));
    }
    if (readers.size === 0) return;
    const consolidated = await this.session.all(
      `SELECT id, workspace_id FROM invoices WHERE supplier_ref IS NULL AND id IN (${placeholders(readers.size)})`,
      [...readers.keys()],
    );
    await this.audiences.readable(
      consolidated.map((invoice) => ({
        workspaceId: String(invoice.workspace_id),
        type: 'invoice' as const,
        id: String(invoice.id),
        audiences: [...(readers.get(String(invoice.id)) ?? [])],
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
