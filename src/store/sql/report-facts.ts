/**
 * Report fact tables: narrow, denormalised copies of the two large fact sources, clustered by
 * (workspace, time dimension), so a report reads one workspace's rows in time order without
 * joins. They are derived data, rebuilt after every bulk load (seed, import) and by the migration
 * that introduced them; the API never writes the sources, so they cannot drift in between.
 * LEFT JOINs keep an entry whose assignment, worker or timesheet is missing.
 */
export const REPORT_FACTS_DDL = `
CREATE TABLE report_time_entries (
  workspace_id TEXT NOT NULL,
  work_date TEXT NOT NULL,
  id TEXT NOT NULL,
  supplier_ref TEXT,
  org_unit_key TEXT,
  site_key TEXT,
  job_code TEXT,
  pay_code TEXT NOT NULL,
  worker_type TEXT,
  entry_mode TEXT,
  kind TEXT NOT NULL,
  on_behalf INTEGER NOT NULL,
  minutes INTEGER,
  units INTEGER,
  worker_id TEXT NOT NULL,
  PRIMARY KEY (workspace_id, work_date, id)
) WITHOUT ROWID;
-- Covering indexes for the usual groupings: a GROUP BY read in index order needs no sort.
CREATE INDEX report_time_entries_org_unit
  ON report_time_entries (workspace_id, org_unit_key, pay_code, kind, on_behalf, entry_mode, minutes, units);
CREATE INDEX report_time_entries_supplier
  ON report_time_entries (workspace_id, supplier_ref, pay_code, kind, on_behalf, entry_mode, minutes, units);

CREATE TABLE report_invoice_lines (
  workspace_id TEXT NOT NULL,
  invoice_period TEXT NOT NULL,
  id TEXT NOT NULL,
  supplier_ref TEXT,
  org_unit_key TEXT,
  currency TEXT NOT NULL,
  band TEXT,
  pay_code TEXT,
  source_type TEXT NOT NULL,
  invoice_status TEXT NOT NULL,
  invoice_type TEXT NOT NULL,
  amount_cents BIGINT NOT NULL,
  quantity INTEGER,
  unit TEXT,
  PRIMARY KEY (workspace_id, invoice_period, id)
) WITHOUT ROWID;
`;

export const REFRESH_REPORT_FACTS: readonly string[] = [
  'DELETE FROM report_time_entries',
  `INSERT INTO report_time_entries
     SELECT e.workspace_id, e.work_date, e.id, e.supplier_ref, a.org_unit_key, a.site_key, a.job_code, e.pay_code,
            w.type, t.entry_mode, e.kind, e.captured_on_behalf, e.quantity_minutes, e.quantity_units, e.worker_id
     FROM time_entries e
     LEFT JOIN assignments a ON a.id = e.assignment_id
     LEFT JOIN workers w ON w.id = e.worker_id
     LEFT JOIN timesheets t ON t.id = e.timesheet_id`,
  'DELETE FROM report_invoice_lines',
  `INSERT INTO report_invoice_lines
     SELECT l.workspace_id, i.period_start, l.id, l.supplier_ref, l.org_unit_key, l.currency, l.band, l.pay_code,
            l.source_type, i.status, i.type, l.amount_cents, l.quantity, l.unit
     FROM invoice_lines l
     JOIN invoices i ON i.id = l.invoice_id`,
];
