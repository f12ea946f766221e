/**
 * Checks across rows: ids unique (in the files and against the store: ids are primary keys
 * across workspaces), supplier codes unique within the workspace, and every worker_id,
 * assignment_id, timesheet_id and invoice_id naming a record in the files or in the workspace.
 * Pure: what the store holds comes in as `StoredKeys`, asked for through `keyLookups`.
 */
import type { Row } from '../store/sink.js';
import { COLUMN_RULES, type ImportTable } from './import-tables.js';
import { shown, type ImportProblem } from './import-problems.js';

export interface CheckedRow {
  line: number;
  row: Row;
}

export interface CheckedTable {
  file: string;
  table: ImportTable;
  rows: CheckedRow[];
}

/** What to ask the store: per table, the ids to look up. */
export interface KeyLookups {
  /** Ids the files bring, to find those already taken in any workspace. */
  ids: Map<ImportTable, string[]>;
  /** Ids the files refer to but do not bring, to find in the target workspace. */
  references: Map<ImportTable, string[]>;
  supplierCodes: string[];
}

/** What the store answered: the subset of each lookup that exists. */
export interface StoredKeys {
  takenIds: Map<ImportTable, ReadonlySet<string>>;
  workspaceIds: Map<ImportTable, ReadonlySet<string>>;
  supplierCodes: ReadonlySet<string>;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function idsByTable(tables: readonly CheckedTable[]): Map<ImportTable, Set<string>> {
  return new Map(
    tables.map((t) => [t.table, new Set(t.rows.flatMap(({ row }) => text(row.id) ?? []))]),
  );
}

function referenceRules(table: ImportTable) {
  return COLUMN_RULES[table].filter((rule) => rule.references);
}

export function keyLookups(tables: readonly CheckedTable[]): KeyLookups {
  const brought = idsByTable(tables);
  const references = new Map<ImportTable, Set<string>>();
  for (const { table, rows } of tables) {
    for (const rule of referenceRules(table)) {
      const target = rule.references as ImportTable;
      for (const { row } of rows) {
        const id = text(row[rule.name]);
        if (id === null || brought.get(target)?.has(id)) continue;
        references.set(target, (references.get(target) ?? new Set()).add(id));
      }
    }
  }
  const suppliers = tables.find((t) => t.table === 'suppliers')?.rows ?? [];
  return {
    ids: new Map([...brought].map(([table, ids]) => [table, [...ids]])),
    references: new Map([...references].map(([table, ids]) => [table, [...ids]])),
    supplierCodes: [...new Set(suppliers.flatMap(({ row }) => text(row.code) ?? []))],
  };
}

/** Adds the problems of values that must be unique: a repeat in the files, or one stored. */
function checkUnique(
  { file, rows }: CheckedTable,
  column: string,
  stored: ReadonlySet<string>,
  storedWhere: string,
  problems: ImportProblem[],
): void {
  const first = new Map<string, number>();
  for (const { line, row } of rows) {
    const value = text(row[column]);
    if (value === null) continue;
    const seen = first.get(value);
    if (seen !== undefined)
      problems.push({
        file,
        line,
        message: `duplicate ${column} ${shown(value)} (first at line ${seen})`,
      });
    else {
      first.set(value, line);
      if (stored.has(value))
        problems.push({
          file,
          line,
          message: `${column} ${shown(value)} already exists ${storedWhere}`,
        });
    }
  }
}

export function checkKeys(
  tables: readonly CheckedTable[],
  stored: StoredKeys,
  workspaceId: string,
): ImportProblem[] {
  const brought = idsByTable(tables);
  const problems: ImportProblem[] = [];
  for (const checked of tables) {
    const taken = stored.takenIds.get(checked.table) ?? new Set();
    const where = `in ${checked.table} (ids are unique across workspaces)`;
    checkUnique(checked, 'id', taken, where, problems);
    if (checked.table === 'suppliers')
      checkUnique(checked, 'code', stored.supplierCodes, `in workspace ${workspaceId}`, problems);
    for (const rule of referenceRules(checked.table)) {
      const target = rule.references as ImportTable;
      for (const { line, row } of checked.rows) {
        const id = text(row[rule.name]);
        if (id === null || brought.get(target)?.has(id) || stored.workspaceIds.get(target)?.has(id))
          continue;
        problems.push({
          file: checked.file,
          line,
          message: `${rule.name} ${shown(id)} is neither in the ${target} file nor in workspace ${workspaceId}`,
        });
      }
    }
  }
  return problems;
}
