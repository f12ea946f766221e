import { TABLES } from '../schema.js';
import { REPORT_FACT_TABLES } from '../sql/report-facts.js';
import type { Table } from '../table.js';

/**
 * What the columnar copy holds: every table a report view reads (src/semantic/views.ts), each
 * with only the columns the views read, so nothing else (names, emails, notes) is copied, and
 * `id`, by which a patch replaces rows (patch-facts.ts). The two report fact tables come first:
 * they are the large ones. A test checks these lists against the views' SQL.
 */
const READ_BY_REPORTS: Record<string, string[]> = {
  report_time_entries: [
    'id',
    'workspace_id',
    'work_date',
    'supplier_ref',
    'org_unit_key',
    'site_key',
    'job_code',
    'pay_code',
    'worker_type',
    'entry_mode',
    'kind',
    'on_behalf',
    'minutes',
    'units',
    'worker_id',
  ],
  report_invoice_lines: [
    'id',
    'workspace_id',
    'invoice_period',
    'supplier_ref',
    'org_unit_key',
    'currency',
    'band',
    'pay_code',
    'source_type',
    'invoice_status',
    'invoice_type',
    'amount_cents',
    'quantity',
    'unit',
  ],
  invoices: [
    'id',
    'workspace_id',
    'issued_at',
    'supplier_ref',
    'currency',
    'status',
    'type',
    'grouping_rule',
    'total_cents',
    'period_end',
  ],
  timesheets: [
    'id',
    'workspace_id',
    'worker_id',
    'period_start',
    'status',
    'entry_mode',
    'submitted_at',
    'decided_at',
  ],
  workers: [
    'id',
    'workspace_id',
    'tenure_start',
    'supplier_ref',
    'org_unit_key',
    'type',
    'onboarding_state',
    'status',
  ],
  expenses: [
    'id',
    'workspace_id',
    'assignment_id',
    'incurred_on',
    'supplier_ref',
    'currency',
    'category',
    'status',
    'amount_cents',
  ],
  assignments: ['id', 'org_unit_key'],
};

/** A columnar table: the row store's table it copies, and itself (those columns, no keys). */
export interface ColumnarTable {
  source: Table;
  table: Table;
}

function projection(name: string, columns: string[]): ColumnarTable {
  // The report facts are views of the row store (report-facts.ts), the rest its tables.
  const source = TABLES.get(name) ?? REPORT_FACT_TABLES.find((t) => t.name === name);
  if (!source) throw new Error(`no table ${name}`);
  const missing = columns.filter((c) => !Object.hasOwn(source.columns, c));
  if (missing.length) throw new Error(`${name} has no column ${missing.join(', ')}`);
  return {
    source,
    table: {
      name,
      columns: Object.fromEntries(columns.map((c) => [c, source.columns[c]])),
      primaryKey: [],
    },
  };
}

export const COLUMNAR_TABLES: readonly ColumnarTable[] = Object.entries(READ_BY_REPORTS).map(
  ([name, columns]) => projection(name, columns),
);
