/**
 * The storage schema, written in the SQL both dialects accept (TEXT, INTEGER, BIGINT, row values).
 * Timestamps are ISO 8601 UTC strings with milliseconds ("2024-01-31T09:00:00.000Z") and dates are
 * "YYYY-MM-DD", so text order is time order and values leave the store exactly as the API prints them.
 * Booleans are INTEGER 0/1 (NULL where the field is nullable).
 *
 * `supplier_ref` columns hold the supplier's code (SPEC: "supplierRef holds the supplier's code");
 * billing-entity visibility filters on it through the (workspace_id, supplier_ref, ...) indexes.
 */

import { REFRESH_REPORT_FACTS, REPORT_FACTS_DDL } from './sql/report-facts.js';

export const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  plan TEXT NOT NULL,
  page_size INTEGER NOT NULL,
  row_budget INTEGER NOT NULL,
  catalog_source TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE program_configs (
  workspace_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  config TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, version)
);

CREATE TABLE suppliers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  code TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX suppliers_page ON suppliers (workspace_id, created_at, id);
CREATE UNIQUE INDEX suppliers_code ON suppliers (workspace_id, code);

CREATE TABLE workers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  supplier_ref TEXT,
  org_unit_key TEXT,
  type TEXT NOT NULL,
  display_name TEXT NOT NULL,
  work_email TEXT,
  classification_status TEXT,
  tenure_start TEXT,
  onboarding_state TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX workers_page ON workers (workspace_id, created_at, id);

CREATE TABLE assignments (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  supplier_ref TEXT,
  job_code TEXT,
  site_key TEXT,
  org_unit_key TEXT,
  currency TEXT NOT NULL,
  bill_rate_cents BIGINT NOT NULL,
  start_date TEXT NOT NULL,
  end_date TEXT,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX assignments_page ON assignments (workspace_id, created_at, id);
CREATE INDEX assignments_worker ON assignments (workspace_id, worker_id, created_at, id);
CREATE INDEX assignments_supplier ON assignments (workspace_id, supplier_ref, created_at, id);

CREATE TABLE timesheets (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  entry_mode TEXT NOT NULL,
  period_start TEXT NOT NULL,
  period_end TEXT NOT NULL,
  status TEXT NOT NULL,
  config_version INTEGER NOT NULL,
  approval_instance_ref TEXT,
  submitted_at TEXT,
  decided_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX timesheets_page ON timesheets (workspace_id, created_at, id);
CREATE INDEX timesheets_worker ON timesheets (workspace_id, worker_id, created_at, id);

CREATE TABLE time_entries (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  timesheet_id TEXT NOT NULL,
  assignment_id TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  supplier_ref TEXT,
  work_date TEXT NOT NULL,
  pay_code TEXT NOT NULL,
  quantity_minutes INTEGER,
  quantity_units INTEGER,
  kind TEXT NOT NULL,
  corrects_entry_id TEXT,
  captured_on_behalf INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX time_entries_timesheet ON time_entries (timesheet_id, created_at, id);

CREATE TABLE expenses (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  assignment_id TEXT NOT NULL,
  supplier_ref TEXT,
  category TEXT NOT NULL,
  incurred_on TEXT NOT NULL,
  amount_cents BIGINT NOT NULL,
  currency TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX expenses_page ON expenses (workspace_id, created_at, id);
CREATE INDEX expenses_worker ON expenses (workspace_id, worker_id, created_at, id);
CREATE INDEX expenses_supplier ON expenses (workspace_id, supplier_ref, created_at, id);

CREATE TABLE invoices (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  supplier_ref TEXT,
  type TEXT NOT NULL,
  number TEXT,
  status TEXT NOT NULL,
  grouping_rule TEXT NOT NULL,
  group_key TEXT NOT NULL,
  period_start TEXT NOT NULL,
  period_end TEXT NOT NULL,
  currency TEXT NOT NULL,
  total_cents BIGINT NOT NULL,
  config_version INTEGER NOT NULL,
  corrects_invoice_ref TEXT,
  issued_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX invoices_page ON invoices (workspace_id, created_at, id);
CREATE INDEX invoices_supplier ON invoices (workspace_id, supplier_ref, created_at, id);

CREATE TABLE invoice_lines (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  invoice_id TEXT NOT NULL,
  supplier_ref TEXT,
  source_type TEXT NOT NULL,
  source_ref TEXT NOT NULL,
  worker_ref TEXT,
  assignment_ref TEXT,
  org_unit_key TEXT,
  pay_code TEXT,
  band TEXT,
  description TEXT NOT NULL,
  quantity INTEGER,
  unit TEXT,
  rate_cents BIGINT,
  multiplier_bp INTEGER,
  amount_cents BIGINT NOT NULL,
  currency TEXT NOT NULL,
  currency_mismatch INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX invoice_lines_invoice ON invoice_lines (invoice_id, created_at, id);
CREATE INDEX invoice_lines_supplier ON invoice_lines (invoice_id, supplier_ref, created_at, id);

CREATE TABLE approval_statuses (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  approval_instance_ref TEXT NOT NULL,
  subject_type TEXT NOT NULL,
  subject_ref TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  supplier_ref TEXT,
  step INTEGER NOT NULL,
  state TEXT NOT NULL,
  decided_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX approval_statuses_page ON approval_statuses (workspace_id, created_at, id);
CREATE INDEX approval_statuses_worker ON approval_statuses (workspace_id, worker_id, created_at, id);
CREATE INDEX approval_statuses_supplier ON approval_statuses (workspace_id, supplier_ref, created_at, id);

CREATE TABLE saved_queries (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  dashboard_id TEXT,
  definition TEXT NOT NULL,
  author TEXT NOT NULL,
  pinned_at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX saved_queries_page ON saved_queries (workspace_id, pinned_at, id);

CREATE TABLE semantic_catalog (
  workspace_id TEXT NOT NULL,
  key TEXT NOT NULL,
  entry_type TEXT NOT NULL,
  definition TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, entry_type, key)
);

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  worker_id TEXT,
  supplier_id TEXT,
  scopes TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT,
  created_at TEXT NOT NULL
);
`,
  // 2: report fact tables, filled from whatever data is already there.
  [REPORT_FACTS_DDL, ...REFRESH_REPORT_FACTS].join(';\n'),
];

/** Tables the seed generator and importer write, in dependency order. */
export const DATA_TABLES = [
  'workspaces',
  'program_configs',
  'suppliers',
  'workers',
  'assignments',
  'timesheets',
  'time_entries',
  'expenses',
  'invoices',
  'invoice_lines',
  'approval_statuses',
  'saved_queries',
  'semantic_catalog',
] as const;

export type DataTable = (typeof DATA_TABLES)[number];
