/**
 * What a load does with a row whose id may already be stored (DESIGN §4.11), as pure rules that
 * the load writer applies inside its transaction and the importer's check pass applies before
 * anything is written, so both decide alike:
 *
 * - no stored row: inserted;
 * - stored in another workspace: an error (ids are keys across workspaces);
 * - identical to the stored row: unchanged, nothing written;
 * - time entries and invoice lines are append-only (SPEC: a correction adds rows): any other
 *   content under a stored id is an error;
 * - other records replace the stored row when their `updated_at` (a saved query's `pinned_at`)
 *   is later, are skipped when it is earlier, and are an error when it is the same but the row
 *   differs (two versions of one record with one time: which one is true cannot be told).
 */
import { TABLES, type DataTable } from '../schema.js';
import { baseType, columnNames } from '../table.js';
import type { Row } from '../sink.js';

/** Tables whose rows are never changed once stored. */
export const APPEND_ONLY: ReadonlySet<DataTable> = new Set(['time_entries', 'invoice_lines']);

/** The column that orders versions of a record, for tables whose records change. */
export const VERSION_COLUMN: Partial<Record<DataTable, string>> = {
  suppliers: 'updated_at',
  workers: 'updated_at',
  assignments: 'updated_at',
  timesheets: 'updated_at',
  expenses: 'updated_at',
  invoices: 'updated_at',
  approval_statuses: 'updated_at',
  saved_queries: 'pinned_at',
};

/** Tables a load upserts by `id`: every record table (the seed's own tables are inserted). */
export function upsertsById(table: DataTable): boolean {
  return APPEND_ONLY.has(table) || VERSION_COLUMN[table] !== undefined;
}

/** Two stored values are the same (null only equals null; numbers and their text alike). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  return b !== null && b !== undefined && String(a) === String(b);
}

export type Outcome = 'insert' | 'update' | 'unchanged' | 'skip' | { problem: string };

/** A stored or incoming value as compared: integers as numbers (PostgreSQL sends BIGINT as text). */
function comparable(type: 'text' | 'integer' | 'bigint', value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  return type === 'text' ? String(value) : Number(value);
}

const compared = new Map<DataTable, { name: string; type: 'text' | 'integer' | 'bigint' }[]>();

/** The columns two versions of a row are compared on: all but `workspace_id`. */
function comparedColumns(table: DataTable) {
  let columns = compared.get(table);
  if (!columns) {
    const declared = TABLES.get(table);
    if (!declared) throw new Error(`the schema has no table ${table}`);
    columns = columnNames(declared)
      .filter((name) => name !== 'workspace_id')
      .map((name) => ({ name, type: baseType(declared.columns[name]) }));
    compared.set(table, columns);
  }
  return columns;
}

/** A row's content as one string, equal for equal rows whatever store it was read from. */
export function canonicalRow(table: DataTable, row: Record<string, unknown>): string {
  return JSON.stringify(comparedColumns(table).map((c) => comparable(c.type, row[c.name])));
}

/**
 * An update as it will be stored (DESIGN §4.11 "What a row means"): the stored row with the
 * incoming row's columns laid over it. An incoming row holds only the columns its file carries,
 * so a column left out keeps its stored value and one carried empty or null clears it.
 */
export function mergeStored(stored: Row, incoming: Row): Row {
  const merged: Row = { ...stored };
  for (const [column, value] of Object.entries(incoming))
    if (value !== undefined) merged[column] = value;
  return merged;
}

/** What the store knows of a stored row, as the rules need it. */
export interface StoredVersion {
  workspaceId: string;
  /** canonicalRow of the stored row. */
  content: string;
  /** Its VERSION_COLUMN value (null for append-only tables). */
  version: string | null;
}

export function storedVersionOf(table: DataTable, row: Row): StoredVersion {
  const column = VERSION_COLUMN[table];
  return {
    workspaceId: String(row.workspace_id),
    content: canonicalRow(table, row),
    version: column ? String(row[column]) : null,
  };
}

const NOUNS: Partial<Record<DataTable, string>> = {
  time_entries: 'time entries',
  invoice_lines: 'invoice lines',
};

/**
 * What a load does with an incoming row of `table` (content and version as storedVersionOf
 * gives them) given the stored one, in workspace `workspaceId`.
 */
export function classify(
  table: DataTable,
  incoming: { id: string; content: string; version: string | null },
  stored: StoredVersion | null,
  workspaceId: string,
): Outcome {
  if (stored === null) return 'insert';
  if (stored.workspaceId !== workspaceId)
    return { problem: `id ${JSON.stringify(incoming.id)} already exists in another workspace` };
  if (stored.content === incoming.content) return 'unchanged';
  const column = VERSION_COLUMN[table];
  if (APPEND_ONLY.has(table) || !column)
    return {
      problem: `id ${JSON.stringify(incoming.id)} is already stored with other values: ${NOUNS[table] ?? table} are never changed (a correction adds new rows)`,
    };
  const [mine, theirs] = [incoming.version ?? '', stored.version ?? ''];
  if (mine > theirs) return 'update';
  if (mine < theirs) return 'skip';
  return {
    problem: `${column} ${JSON.stringify(mine)} is the stored record's, but other values differ: a changed record needs a later ${column}`,
  };
}
