/**
 * The storage schema as data: tables, columns, types, keys and indexes, from which each dialect
 * renders its DDL (`Dialect.createTable`, `Dialect.createIndex`). Types are text, integer and bigint.
 * Timestamps are ISO 8601 UTC strings with milliseconds ("2024-01-31T09:00:00.000Z") and dates are
 * "YYYY-MM-DD", so text order is time order and values leave the store exactly as the API prints them.
 * Booleans are INTEGER 0/1 (NULL where the field is nullable).
 *
 * `supplier_ref` columns hold the supplier's code (SPEC: "supplierRef holds the supplier's code");
 * billing-entity visibility filters on it through the (workspace_id, supplier_ref, ...) indexes.
 */

import {
  CHANGE_LOG_TABLES,
  READ_INVOICES,
  START_CHANGE_LOG,
  TOMBSTONE_TABLES,
} from './sql/change-log.js';
import { OAUTH_RECORDS_TABLE } from './sql/oauth-records.js';
import {
  AUDIT_SET_WORKERS_TABLE,
  AUDIT_MINUTES_TABLE,
  AUDIT_SETS_TABLE,
  AUDIT_TABLES_12,
  MINUTES_FROM_EVENTS,
  REVEALS_TO_SETS,
} from './sql/audit/audit-tables.js';
import {
  ANSWER_TEXT_DROPPED,
  WEBHOOK_ATTEMPTS_TABLE,
  WEBHOOK_DELIVERY_TABLES,
} from './sql/webhook-delivery-tables.js';
import { WEBHOOK_SUBSCRIPTIONS_TABLE } from './sql/webhook-subscriptions.js';
import { FACTS_AS_VIEWS, REPORT_FACT_TABLES, RETIRED_FACT_INDEXES } from './sql/report-facts.js';
import { FILL_PERIOD_ZONES, PERIOD_ZONES_TABLE } from './sql/period-zones.js';
import type { Table } from './table.js';

/** Access keys as version 1 made them (stored hashed). */
const TOKENS_1: Table = {
  name: 'tokens',
  columns: {
    id: 'text',
    workspace_id: 'text!',
    token_hash: 'text!',
    role: 'text!',
    worker_id: 'text',
    supplier_id: 'text',
    scopes: 'text!',
    expires_at: 'text',
    revoked_at: 'text',
    created_at: 'text!',
  },
  primaryKey: ['id'],
  unique: ['token_hash'],
};

/**
 * Version 16: an access key may be minted for the OData feed's URL (`token create --in-url`,
 * DESIGN §4.18): `in_url` 1. The table is made again with the column, as version 10 made
 * `webhook_attempts` again, so a new database and an upgraded one hold the same columns.
 */
const TOKENS_16: Table = { ...TOKENS_1, columns: { ...TOKENS_1.columns, in_url: 'integer!' } };
const TOKEN_COLUMNS_1 = Object.keys(TOKENS_1.columns).join(', ');

/** Time entries as versions 1-16 kept them: a rowid table, with an index of their `id` key. */
const TIME_ENTRIES_1: Table = {
  name: 'time_entries',
  columns: {
    id: 'text',
    workspace_id: 'text!',
    timesheet_id: 'text!',
    assignment_id: 'text!',
    worker_id: 'text!',
    supplier_ref: 'text',
    work_date: 'text!',
    pay_code: 'text!',
    quantity_minutes: 'integer',
    quantity_units: 'integer',
    kind: 'text!',
    corrects_entry_id: 'text',
    captured_on_behalf: 'integer!',
    created_at: 'text!',
  },
  primaryKey: ['id'],
  indexes: {
    // A patch of a columnar copy finds a timesheet's entries by it (src/store/duckdb/fact-export.ts);
    // work_date last, from when that read their facts' keys from it alone (until schema 18).
    time_entries_timesheet: { columns: ['timesheet_id', 'created_at', 'id', 'work_date'] },
  },
};

/**
 * Version 17: time entries kept in `id` order (SQLite: WITHOUT ROWID), one B-tree where the rowid
 * table and its `id` index were two (a loaded entry's bytes: docs/performance.md "Fourth round").
 * Made again, as version 16 made `tokens`; on PostgreSQL, whose tables are heaps, nothing changes.
 */
const TIME_ENTRIES_17: Table = {
  ...TIME_ENTRIES_1,
  // A clustered key is NOT NULL (SQLite's rowid tables let a text key hold NULL).
  columns: { ...TIME_ENTRIES_1.columns, id: 'text!' },
  clustered: true,
};
const TIME_ENTRY_COLUMNS = Object.keys(TIME_ENTRIES_1.columns).join(', ');

const BASE_TABLES: readonly Table[] = [
  { name: 'meta', columns: { key: 'text', value: 'text!' }, primaryKey: ['key'] },
  {
    name: 'workspaces',
    columns: {
      id: 'text',
      name: 'text!',
      plan: 'text!',
      page_size: 'integer!',
      row_budget: 'integer!',
      catalog_source: 'text!',
      created_at: 'text!',
    },
    primaryKey: ['id'],
  },
  {
    name: 'program_configs',
    columns: {
      workspace_id: 'text!',
      version: 'integer!',
      config: 'text!',
      created_at: 'text!',
    },
    primaryKey: ['workspace_id', 'version'],
  },
  {
    name: 'suppliers',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      code: 'text!',
      name: 'text!',
      status: 'text!',
      created_at: 'text!',
      updated_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      suppliers_page: { columns: ['workspace_id', 'created_at', 'id'] },
      suppliers_code: { columns: ['workspace_id', 'code'], unique: true },
    },
  },
  {
    name: 'workers',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      supplier_ref: 'text',
      org_unit_key: 'text',
      type: 'text!',
      display_name: 'text!',
      work_email: 'text',
      classification_status: 'text',
      tenure_start: 'text',
      onboarding_state: 'text!',
      status: 'text!',
      created_at: 'text!',
      updated_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      workers_page: { columns: ['workspace_id', 'created_at', 'id'] },
      workers_status: { columns: ['workspace_id', 'status', 'created_at', 'id'] },
      workers_onboarding: { columns: ['workspace_id', 'onboarding_state', 'created_at', 'id'] },
    },
  },
  {
    name: 'assignments',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      worker_id: 'text!',
      supplier_ref: 'text',
      job_code: 'text',
      site_key: 'text',
      org_unit_key: 'text',
      currency: 'text!',
      bill_rate_cents: 'bigint!',
      start_date: 'text!',
      end_date: 'text',
      status: 'text!',
      created_at: 'text!',
      updated_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      assignments_page: { columns: ['workspace_id', 'created_at', 'id'] },
      assignments_worker: { columns: ['workspace_id', 'worker_id', 'created_at', 'id'] },
      assignments_supplier: { columns: ['workspace_id', 'supplier_ref', 'created_at', 'id'] },
      assignments_status: { columns: ['workspace_id', 'status', 'created_at', 'id'] },
    },
  },
  {
    name: 'timesheets',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      worker_id: 'text!',
      entry_mode: 'text!',
      period_start: 'text!',
      period_end: 'text!',
      status: 'text!',
      config_version: 'integer!',
      approval_instance_ref: 'text',
      submitted_at: 'text',
      decided_at: 'text',
      created_at: 'text!',
      updated_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      timesheets_page: { columns: ['workspace_id', 'created_at', 'id'] },
      timesheets_worker: { columns: ['workspace_id', 'worker_id', 'created_at', 'id'] },
      timesheets_status: { columns: ['workspace_id', 'status', 'created_at', 'id'] },
    },
  },
  TIME_ENTRIES_1,
  {
    name: 'expenses',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      worker_id: 'text!',
      assignment_id: 'text!',
      supplier_ref: 'text',
      category: 'text!',
      incurred_on: 'text!',
      amount_cents: 'bigint!',
      currency: 'text!',
      status: 'text!',
      created_at: 'text!',
      updated_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      expenses_page: { columns: ['workspace_id', 'created_at', 'id'] },
      expenses_worker: { columns: ['workspace_id', 'worker_id', 'created_at', 'id'] },
      expenses_supplier: { columns: ['workspace_id', 'supplier_ref', 'created_at', 'id'] },
      expenses_status: { columns: ['workspace_id', 'status', 'created_at', 'id'] },
    },
  },
  {
    name: 'invoices',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      supplier_ref: 'text',
      type: 'text!',
      number: 'text',
      status: 'text!',
      grouping_rule: 'text!',
      group_key: 'text!',
      period_start: 'text!',
      period_end: 'text!',
      currency: 'text!',
      total_cents: 'bigint!',
      config_version: 'integer!',
      corrects_invoice_ref: 'text',
      issued_at: 'text',
      created_at: 'text!',
      updated_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      invoices_page: { columns: ['workspace_id', 'created_at', 'id'] },
      invoices_supplier: { columns: ['workspace_id', 'supplier_ref', 'created_at', 'id'] },
      invoices_status: { columns: ['workspace_id', 'status', 'created_at', 'id'] },
      invoices_type: { columns: ['workspace_id', 'type', 'created_at', 'id'] },
      invoices_number: { columns: ['workspace_id', 'number', 'created_at', 'id'] },
    },
  },
  {
    name: 'invoice_lines',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      invoice_id: 'text!',
      supplier_ref: 'text',
      source_type: 'text!',
      source_ref: 'text!',
      worker_ref: 'text',
      assignment_ref: 'text',
      org_unit_key: 'text',
      pay_code: 'text',
      band: 'text',
      description: 'text!',
      quantity: 'integer',
      unit: 'text',
      rate_cents: 'bigint',
      multiplier_bp: 'integer',
      amount_cents: 'bigint!',
      currency: 'text!',
      currency_mismatch: 'integer',
      created_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      invoice_lines_invoice: { columns: ['invoice_id', 'created_at', 'id'] },
      invoice_lines_supplier: { columns: ['invoice_id', 'supplier_ref', 'created_at', 'id'] },
    },
  },
  {
    name: 'approval_statuses',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      approval_instance_ref: 'text!',
      subject_type: 'text!',
      subject_ref: 'text!',
      worker_id: 'text!',
      supplier_ref: 'text',
      step: 'integer!',
      state: 'text!',
      decided_at: 'text',
      created_at: 'text!',
      updated_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      approval_statuses_page: { columns: ['workspace_id', 'created_at', 'id'] },
      approval_statuses_worker: { columns: ['workspace_id', 'worker_id', 'created_at', 'id'] },
      approval_statuses_supplier: { columns: ['workspace_id', 'supplier_ref', 'created_at', 'id'] },
      approval_statuses_state: { columns: ['workspace_id', 'state', 'created_at', 'id'] },
      approval_statuses_subject: { columns: ['workspace_id', 'subject_ref', 'created_at', 'id'] },
    },
  },
  {
    name: 'saved_queries',
    columns: {
      id: 'text',
      workspace_id: 'text!',
      kind: 'text!',
      name: 'text!',
      dashboard_id: 'text',
      definition: 'text!',
      author: 'text!',
      pinned_at: 'text!',
      created_at: 'text!',
    },
    primaryKey: ['id'],
    indexes: {
      saved_queries_page: { columns: ['workspace_id', 'pinned_at', 'id'] },
    },
  },
  {
    name: 'semantic_catalog',
    columns: {
      workspace_id: 'text!',
      key: 'text!',
      entry_type: 'text!',
      definition: 'text!',
      enabled: 'integer!',
      updated_at: 'text!',
    },
    primaryKey: ['workspace_id', 'entry_type', 'key'],
  },
  TOKENS_1,
];

/**
 * The indexes that answer the lists' filters (DESIGN §4.15), declared with their tables above:
 * an equality filter walks its `(workspace_id, column, created_at, id)` index in the page's
 * order; a period walks the page's own index between the creation days its period zones allow
 * (sql/period-zones.ts). Version 8 also built four period indexes (`timesheets_period_start`,
 * `…_period_end`, and the invoices' two) that nothing reads since version 9, which drops them.
 */
export const FILTER_INDEXES = [
  'workers_status',
  'workers_onboarding',
  'assignments_status',
  'timesheets_status',
  'expenses_status',
  'invoices_status',
  'invoices_type',
  'invoices_number',
  'approval_statuses_state',
  'approval_statuses_subject',
];

/** Version 8's period indexes, which period zones replaced (each load paid for them). */
const RETIRED_PERIOD_INDEXES = [
  'timesheets_period_start',
  'timesheets_period_end',
  'invoices_period_start',
  'invoices_period_end',
];

/** Indexes added to tables an earlier version made: created unless a new database has them. */
function addIndexes(names: readonly string[]): string[] {
  return names.map((name) => {
    const table = BASE_TABLES.find((t) => t.indexes?.[name]);
    if (!table) throw new Error(`no table declares the index ${name}`);
    return `CREATE INDEX IF NOT EXISTS ${name} ON ${table.name} (${table.indexes![name].columns.join(', ')})`;
  });
}

/**
 * One schema version: statements to run first (`before`, for a table made again), tables (with
 * their indexes) to create, then statements to run.
 */
export interface Migration {
  before?: readonly string[];
  tables: readonly Table[];
  statements: readonly string[];
  /**
   * The only dialect whose database holds it: what a SQLite database keeps in a side file of its
   * own (sqlite/side-file.ts) is a table of the database on PostgreSQL. Elsewhere the version
   * counts, and nothing is made.
   */
  only?: 'sqlite' | 'postgres';
  /** Tables an earlier version made that this one drops (no longer the schema's). */
  retires?: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  { tables: BASE_TABLES, statements: [] },
  // 2: report fact tables (until 18, which makes them views over the records: nothing fills them
  // on the way there).
  { tables: REPORT_FACT_TABLES, statements: [] },
  // 3: data versions and the change log.
  { tables: CHANGE_LOG_TABLES, statements: START_CHANGE_LOG },
  // 4: what the built-in authorization server keeps (sessions, grants, codes, refresh tokens).
  { tables: [OAUTH_RECORDS_TABLE], statements: [] },
  // 5: deletions, and what the change feed says of records that left (DESIGN §4.13).
  { tables: TOMBSTONE_TABLES, statements: [] },
  // 6: webhook subscriptions (DESIGN §4.14).
  { tables: [WEBHOOK_SUBSCRIPTIONS_TABLE], statements: [] },
  // 7: where each subscription's delivery stands, and its recent attempts.
  { tables: WEBHOOK_DELIVERY_TABLES, statements: [] },
  // 8: the indexes of the lists' filters.
  { tables: [], statements: addIndexes(FILTER_INDEXES) },
  // 9: period zones, so that a period filter walks only the days that can hold its records.
  {
    tables: [PERIOD_ZONES_TABLE],
    statements: [
      ...RETIRED_PERIOD_INDEXES.map((name) => `DROP INDEX IF EXISTS ${name}`),
      ...FILL_PERIOD_ZONES,
    ],
  },
  // 10: the webhook attempt log keeps an answer's size, never its text (made again without it).
  {
    before: ANSWER_TEXT_DROPPED.before,
    tables: [WEBHOOK_ATTEMPTS_TABLE],
    statements: ANSWER_TEXT_DROPPED.after,
  },
  // 11: billing entities read invoices through their audience rows (DESIGN §4.16).
  { tables: [], statements: [READ_INVOICES] },
  // 12: the access trail (DESIGN §4.17); on SQLite a file of its own, `<db>-audit`.
  { tables: AUDIT_TABLES_12, statements: [], only: 'postgres' },
  // 13: the trail's revealed workers by set (written once a day per set, not once per event).
  { tables: [AUDIT_SET_WORKERS_TABLE], statements: REVEALS_TO_SETS, only: 'postgres' },
  // 14: the report facts' two covering indexes, which only the row store's reports read.
  { tables: [], statements: RETIRED_FACT_INDEXES.map((name) => `DROP INDEX IF EXISTS ${name}`) },
  // 15: the authorization records still to expire by model (the unused clients' ceiling); on
  // SQLite the `-oauth` file makes its table's indexes whenever it opens.
  {
    tables: [],
    statements: [
      'CREATE INDEX IF NOT EXISTS oauth_records_model_expiry ON oauth_records (model, expires_at)',
    ],
    only: 'postgres',
  },
  // 16: access keys the OData feed takes in the URL (`in_url`).
  {
    before: ['CREATE TABLE tokens_15 AS SELECT * FROM tokens', 'DROP TABLE tokens'],
    tables: [TOKENS_16],
    statements: [
      `INSERT INTO tokens (${TOKEN_COLUMNS_1}, in_url) SELECT ${TOKEN_COLUMNS_1}, 0 FROM tokens_15`,
      'DROP TABLE tokens_15',
    ],
  },
  // 17: time entries clustered by id (SQLite).
  {
    before: [
      'CREATE TABLE time_entries_16 AS SELECT * FROM time_entries',
      'DROP TABLE time_entries',
    ],
    tables: [TIME_ENTRIES_17],
    statements: [
      `INSERT INTO time_entries (${TIME_ENTRY_COLUMNS}) SELECT ${TIME_ENTRY_COLUMNS} FROM time_entries_16 ORDER BY id`,
      'DROP TABLE time_entries_16',
    ],
    only: 'sqlite',
  },
  // 18: the row store keeps no copy of the report facts: two views over the records instead.
  { tables: [], statements: FACTS_AS_VIEWS, retires: REPORT_FACT_TABLES.map((t) => t.name) },
  // 19: the trail as a log (issue 59): sets' records written once, the events' three indexes
  // become minute rows built per batch.
  {
    tables: [AUDIT_SETS_TABLE, AUDIT_MINUTES_TABLE],
    statements: MINUTES_FROM_EVENTS,
    only: 'postgres',
  },
];

/** Every table of the schema by name. */
export const TABLES: ReadonlyMap<string, Table> = new Map(
  // A dialect's own tables (the access trail on PostgreSQL) are not the data's; a data table made
  // again for one dialect's storage (time entries, 17) holds the same columns on both.
  MIGRATIONS.filter((m) => m.only !== 'postgres')
    .flatMap((m) => m.tables)
    .filter((t) => !MIGRATIONS.some((m) => m.retires?.includes(t.name)))
    .map((t) => [t.name, t]),
);

/** A table of the schema by name (an unknown name is a programming error). */
export function tableOf(name: string): Table {
  const table = TABLES.get(name);
  if (!table) throw new Error(`the schema has no table ${name}`);
  return table;
}

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
