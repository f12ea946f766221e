/**
 * From the files of an import directory to raw rows: which table each file fills, and the
 * column → value pairs of each row with the physical line it starts on. CSV values are strings
 * (an empty field is null); NDJSON values are whatever JSON holds. Pure: the caller reads files.
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../records/json-depth.js';
import { csvRecords, MAX_RECORD_CHARS, type CsvRecord } from './csv-reader.js';
import {
  DELETIONS,
  IMPORT_TABLES,
  importTableOf,
  SOURCE_RULES,
  type SourceTable,
} from './import-tables.js';
import { shown, type ImportProblem, type ProblemSink } from './import-problems.js';

export type SourceFormat = 'csv' | 'ndjson';

/** A source file is not UTF-8 text (reading stops at the first invalid byte). */
export class NotUtf8Error extends Error {
  constructor() {
    super('not valid UTF-8 text');
  }
}

export interface SourceFile {
  file: string;
  table: SourceTable;
  format: SourceFormat;
}

export interface RawRow {
  line: number;
  values: Record<string, unknown>;
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
    const table = match ? (match[1] === DELETIONS ? DELETIONS : importTableOf(match[1])) : null;
    if (!match || !table) {
      problems.push({
        file,
        message: `not an import file: expected <table>.csv or <table>.ndjson, table one of ${IMPORT_TABLES.join(', ')}, or deletions.csv or deletions.ndjson`,
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
  // Tables in dependency order; deletions last, as they apply after every row (DESIGN §4.13).
  const rank = (table: SourceTable) =>
    table === DELETIONS ? IMPORT_TABLES.length : IMPORT_TABLES.indexOf(table);
  sources.sort((a, b) => rank(a.table) - rank(b.table));
  return { sources, problems };
}

/** Why a column name cannot be imported into `table`, or null when it can. */
function columnProblem(table: SourceTable, column: string): string | null {
  if (column === 'workspace_id') return 'workspace_id must not be given: rows go to --workspace';
  if (!SOURCE_RULES[table].some((rule) => rule.name === column))
    return `unknown column ${shown(column)}`;
  return null;
}

/**
 * Turns one source file's records into raw rows as they arrive: the first CSV record is the
 * header; an NDJSON line is one object. Problems are pushed to `problems`.
 */
class RowParser {
  private header: CsvRecord | null = null;
  private columns: [index: number, name: string][] = [];

  constructor(
    private readonly source: SourceFile,
    private readonly problems: ProblemSink,
  ) {}

  /** A CSV record: the header first, then rows (null for a record that is not one). */
  csv(record: CsvRecord): RawRow | null {
    const { file, table } = this.source;
    const header = this.header;
    if (!header) {
      this.header = record;
      record.fields.forEach((name, index) => {
        const problem =
          record.fields.indexOf(name) < index
            ? `duplicate column ${shown(name)}`
            : columnProblem(table, name);
        if (problem) this.problems.push({ file, line: record.line, message: problem });
        else this.columns.push([index, name]);
      });
      // Every row names its record; other columns may be left out of an update (DESIGN §4.11),
      // which only the stored rows can tell (stored-rows.ts).
      if (!record.fields.includes('id'))
        this.problems.push({ file, line: record.line, message: 'missing column id' });
      return null;
    }
    const { line, fields } = record;
    if (fields.length !== header.fields.length) {
      this.problems.push({
        file,
        line,
        message: `expected ${header.fields.length} fields as in the header, got ${fields.length}`,
      });
      return null;
    }
    // Made key by key in the header's order: every row of the file gets one object shape.
    const values: Record<string, string | null> = {};
    for (const [index, name] of this.columns)
      values[name] = fields[index] === '' ? null : fields[index];
    return { line, values };
  }

  /** The end of a CSV source: its first malformed spot, if any, and a missing header. */
  csvEnd(error: { line: number; message: string } | null): void {
    if (error) this.problems.push({ file: this.source.file, ...error });
    else if (!this.header) this.problems.push({ file: this.source.file, message: 'no header row' });
  }

  /** One NDJSON line (a carriage return before the break is dropped; blank lines skipped). */
  ndjson(line: number, raw: string): RawRow | null {
    const { file, table } = this.source;
    const json = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (json.trim() === '') return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      this.problems.push({ file, line, message: `not valid JSON (${(error as Error).message})` });
      return null;
    }
    if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) {
      this.problems.push({
        file,
        line,
        message: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      });
      return null;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      const kind = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed;
      this.problems.push({ file, line, message: `expected a JSON object, got ${kind}` });
      return null;
    }
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(parsed)) {
      const problem = columnProblem(table, name);
      if (problem) this.problems.push({ file, line, message: problem });
      else values[name] = value;
    }
    return { line, values };
  }
}

/**
 * The raw rows of one source file as its text arrives in chunks (see sourceText), batch by
 * batch, in constant memory; problems are pushed to `problems` as found.
 */
export async function* streamSource(
  source: SourceFile,
  chunks: AsyncIterable<string>,
  problems: ProblemSink,
): AsyncGenerator<RawRow[]> {
  const parser = new RowParser(source, problems);
  if (source.format === 'csv') {
    const records = csvRecords(chunks);
    for (;;) {
      const next = await records.next();
      if (next.done) {
        parser.csvEnd(next.value);
        return;
      }
      yield next.value.flatMap((record) => parser.csv(record) ?? []);
    }
  }
  let pending = '';
  let line = 1;
  // A line past MAX_RECORD_CHARS is reported once and its rest skipped, up to its line break.
  let skipping = false;
  for await (const chunk of chunks) {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    const rows: RawRow[] = [];
    for (const raw of lines) {
      if (skipping) skipping = false;
      else {
        const row = parser.ndjson(line, raw);
        if (row) rows.push(row);
      }
      line++;
    }
    if (!skipping && pending.length > MAX_RECORD_CHARS) {
      problems.push({ file: source.file, line, message: LINE_TOO_LONG });
      skipping = true;
    }
    if (skipping) pending = '';
    yield rows;
  }
  const last = skipping ? null : parser.ndjson(line, pending);
  if (last) yield [last];
}

const LINE_TOO_LONG = `the line is longer than ${MAX_RECORD_CHARS.toLocaleString('en')} characters (a value too long); it is not read`;
