import type { Table } from '../table.js';

/**
 * The report facts: the rows of the two large fact views reports read (src/semantic/views.ts),
 * each a time entry or an invoice line with the columns of the records it names copied beside
 * its own. Schema versions 2-16 kept them as tables of the row store, written by every load;
 * version 17 keeps none (DESIGN §4.11, docs/performance.md "Fourth round"): the row store holds
 * each as a SQL view over the records, joined when read (by reports the row store answers while
 * no columnar copy can, and by the columnar copies' base, `build-facts.ts`), and a copy's patch
 * reads the facts of changed records from the records themselves (`fact-export.ts`).
 * LEFT JOINs keep an entry whose assignment, worker or timesheet is missing.
 */

/**
 * Schema version 14 dropped the two covering indexes of report_time_entries that versions 2-13
 * kept (by org unit and by supplier), for the row store's reports alone (issue 45).
 */
export const RETIRED_FACT_INDEXES = [
  'report_time_entries_org_unit',
  'report_time_entries_supplier',
];

/**
 * The two fact views' shapes (columns, types, and the key their rows are read in for a columnar
 * base): tables from version 2 to 16, views from 17.
 */
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

/**
 * SELECT of the report fact rows of the time entries matching `where` (over `e`), its columns
 * named as the view's.
 */
export function entryFactsSelect(where = ''): string {
  return `SELECT e.workspace_id, e.work_date, e.id, e.supplier_ref, a.org_unit_key, a.site_key, a.job_code, e.pay_code,
            w.type AS worker_type, t.entry_mode, e.kind, e.captured_on_behalf AS on_behalf,
            e.quantity_minutes AS minutes, e.quantity_units AS units, e.worker_id
     FROM time_entries e
     LEFT JOIN assignments a ON a.id = e.assignment_id
     LEFT JOIN workers w ON w.id = e.worker_id
     LEFT JOIN timesheets t ON t.id = e.timesheet_id${where ? ` WHERE ${where}` : ''}`;
}

/**
 * SELECT of the report fact rows of the invoice lines matching `where` (over `l`, `i`). A line's
 * workspace is its invoice's (the importer refuses any other), read from the invoice: a report
 * of the row store then finds a workspace's invoices of a status or period by their indexes
 * before their lines, where a line's own column left it a scan of every workspace's (1.5x slower).
 */
export function lineFactsSelect(where = ''): string {
  return `SELECT i.workspace_id, i.period_start AS invoice_period, l.id, l.supplier_ref, l.org_unit_key, l.currency,
            l.band, l.pay_code, l.source_type, i.status AS invoice_status, i.type AS invoice_type,
            l.amount_cents, l.quantity, l.unit
     FROM invoice_lines l
     JOIN invoices i ON i.id = l.invoice_id${where ? ` WHERE ${where}` : ''}`;
}

/** Version 18: the fact tables dropped, and views of the same names and columns made. */
export const FACTS_AS_VIEWS: readonly string[] = [
  ...REPORT_FACT_TABLES.map((t) => `DROP TABLE IF EXISTS ${t.name}`),
  `CREATE VIEW report_time_entries AS ${entryFactsSelect()}`,
  `CREATE VIEW report_invoice_lines AS ${lineFactsSelect()}`,
];

/**
 * The records whose columns report facts copy, and which columns: a load that changes one of an
 * assignment's or worker's notes it in the change log's `fact_changes`, so that the columnar
 * copies' patches rewrite the facts of its entries (a timesheet's or an invoice's change reaches
 * its entries or lines through `record_changes` already).
 */
export const FACT_DEPENDENCIES = {
  assignments: ['org_unit_key', 'site_key', 'job_code'],
  workers: ['type'],
} as const;
