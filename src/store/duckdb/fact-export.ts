/**
 * The SQL that reads the columnar tables' rows out of the row store as CSV lines (the shared SQL
 * of both row stores): whole, for a new copy, or only the rows changed after a data version, for
 * a patch (DESIGN §4.11). Changed rows are found through the change log: a projected record by
 * its own change; a time entry's facts through its timesheet's change (entries are only ever
 * added, and adding one changes its timesheet) or a fact-column change of its assignment or
 * worker (`fact_changes`, read first); an invoice line's facts through its invoice's change.
 * The row store keeps no copy of the facts (schema 18): those of changed records are joined from
 * the records here (`entryFactsSelect`, `lineFactsSelect`), the whole of them read from its views.
 */
import { entryFactsSelect, lineFactsSelect } from '../sql/report-facts.js';
import { FEED_TYPE_OF, isFeedTable } from '../sql/change-log.js';
import { baseType, columnNames } from '../table.js';
import type { ColumnarTable } from './columnar-tables.js';

/** One column as a CSV field: text quoted with quotes doubled, NULL as nothing, integers in decimal. */
function csvField(column: string, type: 'text' | 'integer' | 'bigint'): string {
  return type === 'text'
    ? `COALESCE('"' || replace(${column}, '"', '""') || '"', '')`
    : `COALESCE(CAST(${column} AS TEXT), '')`;
}

/** The CSV line of a columnar table's row, over the row store's table aliased `alias`. */
function csvLine({ table }: ColumnarTable, alias: string): string {
  return columnNames(table)
    .map((c) => csvField(`${alias}.${c}`, baseType(table.columns[c])))
    .join(" || ',' || ");
}

/** Every row of the table, in primary-key order (a copy's facts then lie in time order). */
export function wholeTableSql(copy: ColumnarTable): string {
  const key = copy.source.primaryKey.map((c) => `t.${c}`).join(', ');
  return `SELECT ${csvLine(copy, 't')} AS line FROM ${copy.source.name} t ORDER BY ${key}`;
}

/** Assignments and workers whose fact columns changed after a version (fact_changes). */
export interface MovedRecords {
  assignments: string[];
  workers: string[];
}

/** The SELECT of moved records a patch reads first. */
export const MOVED_SQL = 'SELECT kind, id FROM fact_changes WHERE version > ?';

/**
 * Time entries whose facts may have changed after a version, at most once each: those of
 * changed timesheets (by their index), and those of moved assignments and workers (one scan of
 * the entries, only when some moved).
 */
function changedEntries(moved: MovedRecords): { sql: string; params: unknown[] } {
  let sql = `SELECT k.id FROM record_changes c JOIN time_entries k ON k.timesheet_id = c.id
    WHERE c.type = 'timesheet' AND c.version > ?`;
  const of = [
    ...(moved.assignments.length > 0
      ? [`k.assignment_id IN (${moved.assignments.map(() => '?').join(', ')})`]
      : []),
    ...(moved.workers.length > 0
      ? [`k.worker_id IN (${moved.workers.map(() => '?').join(', ')})`]
      : []),
  ];
  if (of.length > 0) sql += ` UNION SELECT k.id FROM time_entries k WHERE ${of.join(' OR ')}`;
  return { sql, params: [...moved.assignments, ...moved.workers] };
}

/**
 * The rows of a columnar table changed after `version`: its SELECT of CSV lines and parameters.
 */
export function deltaSql(
  copy: ColumnarTable,
  version: number,
  moved: MovedRecords,
): { lines: string; params: unknown[] } {
  const name = copy.source.name;
  const line = `SELECT ${csvLine(copy, 't')} AS line FROM `;
  if (name === 'report_time_entries') {
    const entries = changedEntries(moved);
    return {
      lines: `${line}(${entryFactsSelect(`e.id IN (${entries.sql})`)}) t`,
      params: [version, ...entries.params],
    };
  }
  if (name === 'report_invoice_lines')
    return {
      lines: `${line}(${lineFactsSelect(`l.invoice_id IN (SELECT c.id FROM record_changes c
        WHERE c.type = 'invoice' AND c.version > ?)`)}) t`,
      params: [version],
    };
  if (isFeedTable(name))
    return {
      lines: `${line}record_changes c JOIN ${name} t ON t.id = c.id
        WHERE c.type = '${FEED_TYPE_OF[name]}' AND c.version > ?`,
      params: [version],
    };
  throw new Error(`no change log covers ${name}`);
}

/**
 * The ids of a columnar table's rows taken out after `version` (DESIGN §4.13): time entries and
 * invoice lines deleted with their timesheet or invoice (`fact_deletions`), deleted records of a
 * copied table (`record_deletions`), as CSV lines of one quoted field.
 */
export function goneSql(
  copy: ColumnarTable,
  version: number,
): { lines: string; params: unknown[] } {
  const name = copy.source.name;
  const line = `SELECT '"' || replace(g.id, '"', '""') || '"' AS line FROM `;
  if (name === 'report_time_entries' || name === 'report_invoice_lines')
    return {
      lines: `${line}fact_deletions g WHERE g.kind = ? AND g.version > ?`,
      params: [name === 'report_time_entries' ? 'entry' : 'line', version],
    };
  if (isFeedTable(name))
    return {
      lines: `${line}record_deletions g WHERE g.type = ? AND g.version > ?`,
      params: [FEED_TYPE_OF[name], version],
    };
  throw new Error(`no change log covers ${name}`);
}
