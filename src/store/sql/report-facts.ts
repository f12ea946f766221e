import type { Table } from '../table.js';

/**
 * Report fact tables: narrow, denormalised copies of the two large fact sources, clustered by
 * (workspace, time dimension), so a report reads one workspace's rows in time order without
 * joins. They are derived data: a load (seed, import) writes the fact rows of what it inserted
 * and rewrites those of records whose copied columns it changed, in its own transaction
 * (src/store/load/); the migration that introduced them and `facts refresh` rebuild them whole.
 * LEFT JOINs keep an entry whose assignment, worker or timesheet is missing.
 */
/**
 * Schema version 14 drops the two covering indexes of report_time_entries that versions 2-13
 * kept (by org unit and by supplier): they were two of a new entry's seven B-tree writes and more
 * than half of its bytes, for the row store's reports alone, which answer only while a columnar
 * copy cannot (docs/performance.md, issue 45).
 */
export const RETIRED_FACT_INDEXES = [
  'report_time_entries_org_unit',
  'report_time_entries_supplier',
];

export const REPORT_FACT_TABLES: readonly Table[] = [
  {
    name: 'report_time_entries',
    columns: {
      workspace_id: 'text!',
      work_date: 'text!',
      id: 'text!',
      supplier_ref: 'text',
      org_unit_key: 'text',
      site_key: 'text',
      job_code: 'text',
      pay_code: 'text!',
      worker_type: 'text',
      entry_mode: 'text',
      kind: 'text!',
      on_behalf: 'integer!',
      minutes: 'integer',
      units: 'integer',
      worker_id: 'text!',
    },
    primaryKey: ['workspace_id', 'work_date', 'id'],
    clustered: true,
  },
  {
    name: 'report_invoice_lines',
    columns: {
      workspace_id: 'text!',
      invoice_period: 'text!',
      id: 'text!',
      supplier_ref: 'text',
      org_unit_key: 'text',
      currency: 'text!',
      band: 'text',
      pay_code: 'text',
      source_type: 'text!',
      invoice_status: 'text!',
      invoice_type: 'text!',
      amount_cents: 'bigint!',
      quantity: 'integer',
      unit: 'text',
    },
    primaryKey: ['workspace_id', 'invoice_period', 'id'],
    clustered: true,
  },
];

/** SELECT of the report fact rows of the time entries matching `where` (over `e`), in table order. */
export function entryFactsSelect(where = ''): string {
  return `SELECT e.workspace_id, e.work_date, e.id, e.supplier_ref, a.org_unit_key, a.site_key, a.job_code, e.pay_code,
            w.type, t.entry_mode, e.kind, e.captured_on_behalf, e.quantity_minutes, e.quantity_units, e.worker_id
     FROM time_entries e
     LEFT JOIN assignments a ON a.id = e.assignment_id
     LEFT JOIN workers w ON w.id = e.worker_id
     LEFT JOIN timesheets t ON t.id = e.timesheet_id${where ? ` WHERE ${where}` : ''}`;
}

/** SELECT of the report fact rows of the invoice lines matching `where` (over `l`, `i`). */
export function lineFactsSelect(where = ''): string {
  return `SELECT l.workspace_id, i.period_start, l.id, l.supplier_ref, l.org_unit_key, l.currency, l.band, l.pay_code,
            l.source_type, i.status, i.type, l.amount_cents, l.quantity, l.unit
     FROM invoice_lines l
     JOIN invoices i ON i.id = l.invoice_id${where ? ` WHERE ${where}` : ''}`;
}

/**
 * The records whose columns report facts copy, which columns, and the column of the facts'
 * source rows that names them: a load that changes one of these columns rewrites the facts of
 * the rows naming the record (entries by `e.<by>`, lines by `l.<by>`).
 */
export const FACT_DEPENDENCIES = {
  assignments: {
    columns: ['org_unit_key', 'site_key', 'job_code'],
    facts: 'entries',
    by: 'assignment_id',
  },
  workers: { columns: ['type'], facts: 'entries', by: 'worker_id' },
  timesheets: { columns: ['entry_mode'], facts: 'entries', by: 'timesheet_id' },
  invoices: { columns: ['period_start', 'status', 'type'], facts: 'lines', by: 'invoice_id' },
} as const;

/**
 * Each fact table rebuilt whole from its sources, inserted in primary-key order (appending to
 * the clustered key rather than splitting pages all over it: twice as fast on SQLite).
 */
export const REBUILD_FACTS = {
  entries: [
    'DELETE FROM report_time_entries',
    `INSERT INTO report_time_entries ${entryFactsSelect()} ORDER BY 1, 2, 3`,
  ],
  lines: [
    'DELETE FROM report_invoice_lines',
    `INSERT INTO report_invoice_lines ${lineFactsSelect()} ORDER BY 1, 2, 3`,
  ],
} as const;

export const REFRESH_REPORT_FACTS: readonly string[] = [
  ...REBUILD_FACTS.entries,
  ...REBUILD_FACTS.lines,
];
