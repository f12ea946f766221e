/**
 * From the files of an import directory to raw rows: which table each file fills, and the
 * column → value pairs of each row with the physical line it starts on. CSV values are strings
 * (an empty field is null); NDJSON values are whatever JSON holds. Pure: the caller reads files.
 */
import { readCsv } from './csv-reader.js';
import { COLUMN_RULES, IMPORT_TABLES, importTableOf, type ImportTable } from './import-tables.js';
import { shown, type ImportProblem } from './import-problems.js';

export type SourceFormat = 'csv' | 'ndjson';

export interface SourceFile {
  file: string;
  table: ImportTable;
  format: SourceFormat;
}

export interface RawRow {
  line: number;
  values: Record<string, unknown>;
}

export interface SourceRows extends SourceFile {
  rows: RawRow[];
}

/** Which files of a directory listing are import sources; any other name is a problem. */
export function planSources(names: readonly string[]): {
  sources: SourceFile[];
  problems: ImportProblem[];
} {
  const sources: SourceFile[] = [];
  const problems: ImportProblem[] = [];
  for (const file of [...names].sort()) {
    const match = /^(.+)\.(csv|ndjson)$/.exec(file);
    const table = match ? importTableOf(match[1]) : null;
    if (!match || !table) {
      problems.push({
        file,
        message: `not an import file: expected <table>.csv or <table>.ndjson, table one of ${IMPORT_TABLES.join(', ')}`,
      });
      continue;
    }
    const twin = sources.find((s) => s.table === table);
    if (twin) {
      problems.push({ file, message: `${table} is already given by ${twin.file}` });
      continue;
    }
    sources.push({ file, table, format: match[2] as SourceFormat });
  }
  sources.sort((a, b) => IMPORT_TABLES.indexOf(a.table) - IMPORT_TABLES.indexOf(b.table));
  return { sources, problems };
}

/** Why a column name cannot be imported into `table`, or null when it can. */
function columnProblem(table: ImportTable, column: string): string | null {
  if (column === 'workspace_id') return 'workspace_id must not be given: rows go to --workspace';
  if (!COLUMN_RULES[table].some((rule) => rule.name === column))
    return `unknown column ${shown(column)}`;
  return null;
}

function csvRows(source: SourceFile, text: string, problems: ImportProblem[]): RawRow[] {
  const { file, table } = source;
  const { records, error } = readCsv(text);
  if (error) problems.push({ file, ...error });
  const [header, ...body] = records;
  if (!header) {
    if (!error) problems.push({ file, message: 'no header row' });
    return [];
  }
  const columns: [index: number, name: string][] = [];
  header.fields.forEach((name, index) => {
    const problem =
      header.fields.indexOf(name) < index
        ? `duplicate column ${shown(name)}`
        : columnProblem(table, name);
    if (problem) problems.push({ file, line: header.line, message: problem });
    else columns.push([index, name]);
  });
  for (const rule of COLUMN_RULES[table]) {
    if (rule.required && rule.name !== 'workspace_id' && !header.fields.includes(rule.name))
      problems.push({ file, line: header.line, message: `missing column ${rule.name}` });
  }
  const rows: RawRow[] = [];
  for (const { line, fields } of body) {
    if (fields.length !== header.fields.length) {
      problems.push({
        file,
        line,
        message: `expected ${header.fields.length} fields as in the header, got ${fields.length}`,
      });
      continue;
    }
    const values = Object.fromEntries(
      columns.map(([index, name]) => [name, fields[index] === '' ? null : fields[index]]),
    );
    rows.push({ line, values });
  }
  return rows;
}

function ndjsonRows(source: SourceFile, text: string, problems: ImportProblem[]): RawRow[] {
  const { file, table } = source;
  const rows: RawRow[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const json = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (json.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      problems.push({ file, line, message: `not valid JSON (${(error as Error).message})` });
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      const kind = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed;
      problems.push({ file, line, message: `expected a JSON object, got ${kind}` });
      return;
    }
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(parsed)) {
      const problem = columnProblem(table, name);
      if (problem) problems.push({ file, line, message: problem });
      else values[name] = value;
    }
    rows.push({ line, values });
  });
  return rows;
}

/** The raw rows of one source file's text (a leading byte-order mark is ignored). */
export function parseSource(
  source: SourceFile,
  text: string,
): { rows: SourceRows; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows =
    source.format === 'csv' ? csvRows(source, body, problems) : ndjsonRows(source, body, problems);
  return { rows: { ...source, rows }, problems };
}
