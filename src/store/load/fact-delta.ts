/**
 * The report facts of one load, by delta (DESIGN §4.11): the load notes which entries and lines
 * it added and which records it changed in a column the facts copy (FACT_DEPENDENCIES), in
 * scratch tables of its transaction; at the end the facts of those records' entries and lines
 * are rewritten, then the added ones' facts inserted, in key order (appending to the clustered
 * fact tables rather than splitting their pages: twice as fast as inserting batch by batch).
 * A fact table that was empty at the start is rebuilt whole instead, once, at the end (a seed).
 */
import {
  entryFactsSelect,
  FACT_DEPENDENCIES,
  lineFactsSelect,
  REBUILD_FACTS,
} from '../sql/report-facts.js';
import type { Row } from '../sink.js';
import { sameValue } from './upsert-rules.js';
import type { WriteSession } from './write-session.js';

export type Dependent = keyof typeof FACT_DEPENDENCIES;
export type FactTable = 'entries' | 'lines';

/** The record kinds the scratch table `load_moved` holds, by the table they are in. */
const KIND: Record<Dependent, string> = {
  assignments: 'assignment',
  workers: 'worker',
  timesheets: 'timesheet',
  invoices: 'invoice',
};

/** A fact row already stored is not inserted again (a rewrite may have written it). */
const NOT_STORED_ENTRY =
  'NOT EXISTS (SELECT 1 FROM report_time_entries f WHERE f.workspace_id = e.workspace_id AND f.work_date = e.work_date AND f.id = e.id)';
const NOT_STORED_LINE =
  'NOT EXISTS (SELECT 1 FROM report_invoice_lines f WHERE f.workspace_id = l.workspace_id AND f.invoice_period = i.period_start AND f.id = l.id)';

export class FactDelta {
  /** Kinds of records moved (a fact column changed) by this load. */
  private readonly moved = new Set<Dependent>();
  private readonly added = new Set<FactTable>();

  /** `whole`: fact tables empty at the start, rebuilt whole at the end instead. */
  constructor(
    private readonly session: WriteSession,
    private readonly whole: ReadonlySet<FactTable>,
  ) {}

  async start(): Promise<void> {
    const { dialect } = this.session;
    for (const sql of [
      ...dialect.scratchTable('load_entries', '(id TEXT PRIMARY KEY)'),
      ...dialect.scratchTable('load_lines', '(id TEXT PRIMARY KEY)'),
      ...dialect.scratchTable(
        'load_moved',
        '(kind TEXT NOT NULL, id TEXT NOT NULL, old_period TEXT, PRIMARY KEY (kind, id))',
      ),
    ])
      await this.session.run(sql);
  }

  /** Entries or lines this load inserted: their facts are written at the end. */
  async inserted(table: FactTable, rows: readonly Row[]): Promise<void> {
    if (this.whole.has(table) || rows.length === 0) return;
    this.added.add(table);
    await this.session.insertRows(
      table === 'entries' ? 'load_entries' : 'load_lines',
      ['id'],
      rows.map((r) => [r.id]),
    );
  }

  /**
   * A record this load changed: when a column the facts copy changed, its entries' or lines'
   * facts are rewritten at the end. True when it did (assignments and workers are then noted in
   * the change log's fact_changes, for the columnar copies).
   */
  async updated(table: Dependent, old: Row, row: Row): Promise<boolean> {
    const dependency = FACT_DEPENDENCIES[table];
    if (dependency.columns.every((c) => sameValue(old[c], row[c]))) return false;
    if (this.whole.has(dependency.facts)) return false;
    this.moved.add(table);
    // The first change of a load keeps the period its lines' facts are stored under.
    await this.session.insertRows(
      'load_moved',
      ['kind', 'id', 'old_period'],
      [[KIND[table], row.id, table === 'invoices' ? old.period_start : null]],
      ['kind', 'id'],
      'ignore',
    );
    return true;
  }

  /** Writes the facts: rewritten for moved records, added for new entries and lines. */
  async finish(): Promise<void> {
    for (const facts of this.whole)
      for (const sql of REBUILD_FACTS[facts]) await this.session.run(sql);
    const movedEntries = (['timesheets', 'assignments', 'workers'] as const).filter((t) =>
      this.moved.has(t),
    );
    if (movedEntries.length > 0) {
      // Only the kinds moved: timesheets reach their entries by index; assignments and workers
      // by one scan of the entries (no index: see change-log.ts).
      const of = movedEntries
        .map(
          (t) =>
            `e.${FACT_DEPENDENCIES[t].by} IN (SELECT id FROM load_moved WHERE kind = '${KIND[t]}')`,
        )
        .join(' OR ');
      await this.session.run(
        `DELETE FROM report_time_entries WHERE (workspace_id, work_date, id) IN
           (SELECT e.workspace_id, e.work_date, e.id FROM time_entries e WHERE ${of})`,
      );
      await this.session.run(`INSERT INTO report_time_entries ${entryFactsSelect(of)}`);
    }
    if (this.added.has('entries')) {
      const where = `e.id IN (SELECT id FROM load_entries)${movedEntries.length > 0 ? ` AND ${NOT_STORED_ENTRY}` : ''}`;
      await this.session.run(
        `INSERT INTO report_time_entries ${entryFactsSelect(where)} ORDER BY 1, 2, 3`,
      );
    }
    const movedInvoices = this.moved.has('invoices');
    if (movedInvoices) {
      // Line facts are keyed by their invoice's period: the period before the load finds them.
      await this.session.run(
        `DELETE FROM report_invoice_lines WHERE (workspace_id, invoice_period, id) IN
           (SELECT l.workspace_id, m.old_period, l.id FROM load_moved m
              JOIN invoice_lines l ON l.invoice_id = m.id WHERE m.kind = 'invoice')`,
      );
      await this.session.run(
        `INSERT INTO report_invoice_lines ${lineFactsSelect("l.invoice_id IN (SELECT id FROM load_moved WHERE kind = 'invoice')")}`,
      );
    }
    if (this.added.has('lines')) {
      const where = `l.id IN (SELECT id FROM load_lines)${movedInvoices ? ` AND ${NOT_STORED_LINE}` : ''}`;
      await this.session.run(
        `INSERT INTO report_invoice_lines ${lineFactsSelect(where)} ORDER BY 1, 2, 3`,
      );
    }
  }
}
