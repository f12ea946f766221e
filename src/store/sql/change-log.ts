import type { Table } from '../table.js';

/**
 * What the change feed and the columnar copies read to follow the data (DESIGN §4.11): every load
 * that changes anything commits a new data version (`meta.data_version`, an integer one above
 * the last) in the same transaction as its rows, and records here which records it changed.
 *
 * `record_changes` holds one row per record of a feed type: the version of the load that last
 * changed it (a timesheet or invoice also changes when entries or lines are added to it). So
 * "what changed after version v" is one index range, and a record appears once, at its latest
 * version. `fact_changes` is internal: the assignments and workers whose report-fact columns
 * (org unit, site, job code; worker type) changed, whose time entries' facts a load rewrote.
 * Time entries have no index by assignment or worker (each would cost every load of entries a
 * third more): such a change, rare, costs its load and each copy's patch one scan of the time
 * entries, whatever the number of assignments and workers it moved.
 */

/** The feed's item types and the table each one's records are in. */
export const FEED_TYPES = {
  supplier: 'suppliers',
  worker: 'workers',
  assignment: 'assignments',
  timesheet: 'timesheets',
  expense: 'expenses',
  invoice: 'invoices',
  approval_status: 'approval_statuses',
} as const;

export type FeedType = keyof typeof FEED_TYPES;

/** The feed's item types in code-point order: the order of types within one version. */
export const FEED_TYPE_NAMES = [
  'approval_status',
  'assignment',
  'expense',
  'invoice',
  'supplier',
  'timesheet',
  'worker',
] as const satisfies readonly FeedType[];
export type FeedTable = (typeof FEED_TYPES)[FeedType];

export const FEED_TYPE_OF: Readonly<Record<FeedTable, FeedType>> = Object.fromEntries(
  Object.entries(FEED_TYPES).map(([type, table]) => [table, type]),
) as Record<FeedTable, FeedType>;

export function isFeedTable(table: string): table is FeedTable {
  return Object.hasOwn(FEED_TYPE_OF, table);
}

export const CHANGE_LOG_TABLES: readonly Table[] = [
  {
    name: 'record_changes',
    columns: { type: 'text!', id: 'text!', workspace_id: 'text!', version: 'bigint!' },
    primaryKey: ['type', 'id'],
    indexes: {
      // The feed: one workspace's changes in (version, type, id) order.
      record_changes_feed: { columns: ['workspace_id', 'version', 'type', 'id'] },
      // Columnar copies: one type's changes after a version, every workspace.
      record_changes_delta: { columns: ['type', 'version'] },
    },
  },
  {
    name: 'fact_changes',
    columns: { kind: 'text!', id: 'text!', version: 'bigint!' },
    primaryKey: ['kind', 'id'],
    indexes: { fact_changes_delta: { columns: ['kind', 'version'] } },
  },
];

/**
 * What the feed says of records that left (DESIGN §4.13), and what the columnar copies take out.
 *
 * - `record_deletions`: a deleted record, with the `deleted_at` its deletion gave (a later row of
 *   the id brings it back; one not later is skipped) and the load's clock (`removed_at`, for the
 *   horizon). Its `record_changes` row stays, at the deletion's version: to staff, a record the
 *   change log names that its table no longer holds is a tombstone.
 * - `audience_changes`: the feed of readers other than staff, beyond what their visibility reaches
 *   through the tables. An audience is `worker:<id>` or `supplier:<code>`. A row is either a
 *   tombstone (`reason` `deleted` or `not_visible`: this audience could read the record and now
 *   cannot) or a read (`reason` null): a supplier a worker now reaches through a new assignment,
 *   which its own change log row would not show; or an invoice a billing entity reads, at the
 *   version what it reads of it last changed (DESIGN §4.16: an invoice's change log row moves with
 *   every line, of any supplier, and a billing entity reads only its own supplier's lines, so
 *   billing entities read invoices through these rows alone). One row per audience and record,
 *   and a tombstone only while the audience cannot read the record.
 * - `fact_deletions`: time entries and invoice lines taken out with their timesheet or invoice,
 *   whose facts a columnar copy drops when it patches past the version.
 */
export const TOMBSTONE_TABLES: readonly Table[] = [
  {
    name: 'record_deletions',
    columns: {
      type: 'text!',
      id: 'text!',
      workspace_id: 'text!',
      version: 'bigint!',
      deleted_at: 'text!',
      removed_at: 'text!',
    },
    primaryKey: ['type', 'id'],
    indexes: {
      record_deletions_delta: { columns: ['type', 'version'] },
      record_deletions_age: { columns: ['removed_at'] },
    },
  },
  {
    name: 'audience_changes',
    columns: {
      workspace_id: 'text!',
      audience: 'text!',
      type: 'text!',
      id: 'text!',
      version: 'bigint!',
      reason: 'text',
      removed_at: 'text',
    },
    primaryKey: ['workspace_id', 'audience', 'type', 'id'],
    indexes: {
      audience_changes_feed: { columns: ['workspace_id', 'audience', 'version', 'type', 'id'] },
      audience_changes_record: { columns: ['type', 'id'] },
      audience_changes_age: { columns: ['removed_at'] },
    },
  },
  {
    name: 'fact_deletions',
    columns: { kind: 'text!', id: 'text!', version: 'bigint!' },
    primaryKey: ['kind', 'id'],
    indexes: { fact_deletions_delta: { columns: ['kind', 'version'] } },
  },
];

/** Where the kept tombstones begin: a cursor from before it is `cursor_expired`. */
export const TOMBSTONE_HORIZON_KEY = 'tombstone_horizon';

/**
 * Data stored before versions existed: every record at version 1 (or the version 0 of an empty
 * database), and the random data stamp of earlier schemas dropped.
 */
export const START_CHANGE_LOG: readonly string[] = [
  // The entries-of-a-timesheet index gains work_date (see its declaration in schema.ts).
  'DROP INDEX time_entries_timesheet',
  'CREATE INDEX time_entries_timesheet ON time_entries (timesheet_id, created_at, id, work_date)',
  ...Object.entries(FEED_TYPES).map(
    ([type, table]) =>
      `INSERT INTO record_changes (type, id, workspace_id, version) SELECT '${type}', id, workspace_id, 1 FROM ${table}`,
  ),
  `INSERT INTO meta (key, value) SELECT 'data_version', CASE WHEN EXISTS (SELECT 1 FROM workspaces) THEN '1' ELSE '0' END`,
  `DELETE FROM meta WHERE key = 'data_stamp'`,
];

/**
 * Schema version 11 (DESIGN §4.16), and a load that builds the change log whole: a read row for
 * each billing entity that reads each invoice (its supplier's, or on a consolidated invoice each
 * of its lines' suppliers; the audience as `supplierAudience` in load/audiences.ts writes it), at
 * the invoice's version in the change log. A row there already is replaced: what reads a record
 * has no tombstone of it. (The WHERE is for SQLite, which parses an upsert's SELECT only with one.)
 */
export const READ_INVOICES = `INSERT INTO audience_changes (workspace_id, audience, type, id, version, reason, removed_at)
  SELECT r.workspace_id, 'supplier:' || r.code, 'invoice', r.id, c.version, NULL, NULL FROM (
    SELECT i.workspace_id, i.id, i.supplier_ref AS code FROM invoices i WHERE i.supplier_ref IS NOT NULL
    UNION SELECT i.workspace_id, i.id, l.supplier_ref AS code FROM invoices i
      JOIN invoice_lines l ON l.invoice_id = i.id WHERE i.supplier_ref IS NULL AND l.supplier_ref IS NOT NULL
  ) r JOIN record_changes c ON c.type = 'invoice' AND c.id = r.id WHERE c.version IS NOT NULL
  ON CONFLICT (workspace_id, audience, type, id) DO UPDATE SET version = excluded.version, reason = NULL, removed_at = NULL`;
