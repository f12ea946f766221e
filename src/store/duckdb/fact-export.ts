/**
 * The SQL that reads the columnar tables' rows out of the row store as CSV lines (the shared SQL
 * of both row stores): whole, for a new copy, or only the rows changed after a data version, for
 * a patch (DESIGN §4.11). Changed rows are found through the change log: a projected record by
 * its own change; a time entry's facts through its timesheet's change (entries are only ever
 * added, and adding one changes its timesheet) or a fact-column change of its assignment or
 * worker (`fact_changes`); an invoice line's facts through its invoice's change.
 */
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

export interface DeltaSql {
  /** SELECT of the CSV lines of the rows changed after the version given as every `?`. */
  lines: string;
  /** How many `?` it takes, each the version. */
  params: number;
}

/** Time entries whose facts may have changed after a version: keys, at most once each. */
const CHANGED_ENTRIES = `
  SELECT e.workspace_id, e.work_date, e.id FROM record_changes c
    JOIN time_entries e ON e.timesheet_id = c.id WHERE c.type = 'timesheet' AND c.version > ?
  UNION SELECT e.workspace_id, e.work_date, e.id FROM fact_changes c
    JOIN time_entries e ON e.assignment_id = c.id WHERE c.kind = 'assignment' AND c.version > ?
  UNION SELECT e.workspace_id, e.work_date, e.id FROM fact_changes c
    JOIN time_entries e ON e.worker_id = c.id WHERE c.kind = 'worker' AND c.version > ?`;

/** The rows of a columnar table changed after a version. */
export function deltaSql(copy: ColumnarTable): DeltaSql {
  const name = copy.source.name;
  let from: string;
  let params = 1;
  if (name === 'report_time_entries') {
    from = `(${CHANGED_ENTRIES}) k JOIN report_time_entries t
      ON t.workspace_id = k.workspace_id AND t.work_date = k.work_date AND t.id = k.id`;
    params = 3;
  } else if (name === 'report_invoice_lines') {
    from = `record_changes c JOIN invoice_lines l ON l.invoice_id = c.id
      JOIN invoices i ON i.id = l.invoice_id
      JOIN report_invoice_lines t ON t.workspace_id = l.workspace_id AND t.invoice_period = i.period_start AND t.id = l.id
      WHERE c.type = 'invoice' AND c.version > ?`;
  } else if (isFeedTable(name)) {
    from = `record_changes c JOIN ${name} t ON t.id = c.id
      WHERE c.type = '${FEED_TYPE_OF[name]}' AND c.version > ?`;
  } else {
    throw new Error(`no change log covers ${name}`);
  }
  return { lines: `SELECT ${csvLine(copy, 't')} AS line FROM ${from}`, params };
}
