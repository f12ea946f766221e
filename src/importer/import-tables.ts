/**
 * What an import may write, and the rule for each column. Columns, SQL types and NOT NULL come
 * from the storage schema itself; enumerations, date/timestamp formats and which text is plain
 * (id-shaped) from the record definitions the API serves (SPEC "Resources", DESIGN §4.7), so
 * neither is written twice.
 */
import type { Field, RecordType } from '../records/record.js';
import { TEXT_LIMITS } from '../records/plain-values.js';
import {
  ApprovalStatusRecord,
  AssignmentRecord,
  ExpenseRecord,
  InvoiceLineRecord,
  InvoiceRecord,
  SAVED_QUERY_KINDS,
  SupplierRecord,
  TimeEntryRecord,
  TimesheetRecord,
  WorkerRecord,
} from '../records/resources.js';
import { DATA_TABLES, TABLES, type DataTable } from '../store/schema.js';
import { baseType, isNotNull } from '../store/table.js';

export type ImportTable = Exclude<DataTable, 'workspaces' | 'program_configs' | 'semantic_catalog'>;

const RECORDS: Record<Exclude<ImportTable, 'saved_queries'>, RecordType> = {
  suppliers: SupplierRecord,
  workers: WorkerRecord,
  assignments: AssignmentRecord,
  timesheets: TimesheetRecord,
  time_entries: TimeEntryRecord,
  expenses: ExpenseRecord,
  invoices: InvoiceRecord,
  invoice_lines: InvoiceLineRecord,
  approval_statuses: ApprovalStatusRecord,
};

function isImportTable(table: string): table is ImportTable {
  return table in RECORDS || table === 'saved_queries';
}

/** Importable tables in dependency order (DATA_TABLES). */
export const IMPORT_TABLES: readonly ImportTable[] = DATA_TABLES.filter(isImportTable);

export function importTableOf(name: string): ImportTable | null {
  return (IMPORT_TABLES as readonly string[]).includes(name) ? (name as ImportTable) : null;
}

/** Columns that name another record of the same workspace, and the table it must be in. */
const REFERENCES: Record<string, ImportTable> = {
  worker_id: 'workers',
  assignment_id: 'assignments',
  timesheet_id: 'timesheets',
  invoice_id: 'invoices',
};

export interface ColumnRule {
  name: string;
  /** `flag` is a boolean stored as INTEGER 0/1. */
  type: 'text' | 'integer' | 'bigint' | 'flag';
  required: boolean;
  /** `id`: PLAIN_ID (src/records/plain-values.ts); `currency`: CURRENCY_CODE. */
  format?: 'id' | 'date' | 'timestamp' | 'currency' | 'saved-definition';
  values?: readonly string[];
  references?: ImportTable;
  /** The most characters (code points) a text value may have. */
  maxLength?: number;
}

function maxLengthOf(column: string): number {
  if (column === 'display_name' || column === 'name' || column === 'author')
    return TEXT_LIMITS.name;
  if (column === 'work_email') return TEXT_LIMITS.email;
  if (column === 'description') return TEXT_LIMITS.description;
  if (column === 'definition') return TEXT_LIMITS.definition;
  return TEXT_LIMITS.other;
}

interface StorageColumn {
  name: string;
  sqlType: 'TEXT' | 'INTEGER' | 'BIGINT';
  notNull: boolean;
}

/** The columns of one table as the schema declares them. */
export function storageColumns(table: DataTable): StorageColumn[] {
  const declared = TABLES.get(table);
  if (!declared) throw new Error(`the schema has no table ${table}`);
  return Object.entries(declared.columns).map(([name, type]) => ({
    name,
    sqlType: baseType(type).toUpperCase() as StorageColumn['sqlType'],
    notNull: isNotNull(type) || declared.primaryKey.includes(name),
  }));
}

function ruleOf(table: ImportTable, column: StorageColumn): ColumnRule {
  const field: Field | undefined =
    table === 'saved_queries'
      ? undefined
      : Object.values(RECORDS[table].fields).find((f) => f.column === column.name);
  const rule: ColumnRule = {
    name: column.name,
    type:
      field?.kind === 'flag'
        ? 'flag'
        : column.sqlType === 'TEXT'
          ? 'text'
          : (column.sqlType.toLowerCase() as 'integer' | 'bigint'),
    required: column.notNull,
  };
  if (field?.kind === 'string' && field.values) rule.values = field.values;
  if (field?.kind === 'string' && field.format) rule.format = field.format;
  else if (column.name.endsWith('_at')) rule.format = 'timestamp';
  if (REFERENCES[column.name]) rule.references = REFERENCES[column.name];
  // A field the API sends plain that is neither listed nor a date is an id, a reference or an open
  // set's value (worker type, assignment status): id-shaped, so that it cannot carry prose. So are
  // every id and reference column (approval_statuses.worker_id is not sent, but is an id) and a
  // saved query's dashboardId (SPEC "Saved query item"). Every other text column is people text.
  const plain = field?.kind === 'string' && !field.values && !field.format;
  const dashboardId = table === 'saved_queries' && column.name === 'dashboard_id';
  if (plain || column.name === 'id' || rule.references || dashboardId) rule.format = 'id';
  if (column.name === 'currency') rule.format = 'currency';
  if (table === 'saved_queries' && column.name === 'kind') rule.values = SAVED_QUERY_KINDS;
  if (table === 'saved_queries' && column.name === 'definition') rule.format = 'saved-definition';
  if (rule.type === 'text') rule.maxLength = maxLengthOf(column.name);
  return rule;
}

/** Every storage column of an importable table, `workspace_id` included, in schema order. */
export const COLUMN_RULES = {} as Record<ImportTable, readonly ColumnRule[]>;
for (const table of IMPORT_TABLES)
  COLUMN_RULES[table] = storageColumns(table).map((column) => ruleOf(table, column));

/** The file of deletions (DESIGN §4.13): `deletions.csv` or `deletions.ndjson`. */
export const DELETIONS = 'deletions';

/** What a source file fills: a table, or the load's deletions. */
export type SourceTable = ImportTable | typeof DELETIONS;

/** The record types a deletion may name: the change feed's (a timesheet takes its entries, an invoice its lines). */
export const DELETION_TYPES = [
  'supplier',
  'worker',
  'assignment',
  'timesheet',
  'expense',
  'invoice',
  'approval_status',
] as const;

/** The columns of a source file, deletions' included. */
export const SOURCE_RULES: Record<SourceTable, readonly ColumnRule[]> = {
  ...COLUMN_RULES,
  [DELETIONS]: [
    { name: 'workspace_id', type: 'text', required: true },
    {
      name: 'type',
      type: 'text',
      required: true,
      values: DELETION_TYPES,
      maxLength: TEXT_LIMITS.other,
    },
    { name: 'id', type: 'text', required: true, format: 'id', maxLength: TEXT_LIMITS.other },
    {
      name: 'deleted_at',
      type: 'text',
      required: true,
      format: 'timestamp',
      maxLength: TEXT_LIMITS.other,
    },
  ],
};
