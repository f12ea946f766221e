/**
 * One row against its table's column rules: each value converted to what the store holds, or
 * a message saying why it cannot be. Pure; the messages name the column and quote the value.
 */
import { CURRENCY_CODE, isPlainId, PLAIN_ID_SHAPE } from '../records/plain-values.js';
import type { Row } from '../store/sink.js';
import { checkSavedDefinition } from '../semantic/saved-definition.js';
import { SOURCE_RULES, type ColumnRule, type SourceTable } from './import-tables.js';
import { shown } from './import-problems.js';
import type { SourceFormat } from './source-files.js';

export type Converted = { value: string | number } | { problem: string };

export const RANGES = {
  integer: [-(2 ** 31), 2 ** 31 - 1],
  bigint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
} as const;

export const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Values already found valid: a file repeats its dates and times (a day's entries, a load's
 * timestamp), and parsing each again is the importer's largest cost of checking a row.
 * Cleared when full, so memory is bounded whatever the file.
 */
const validDates = new Set<string>();
const validTimestamps = new Set<string>();

/** The stored formats, and a real instant: no 2026-02-30 or 24:00. */
function isStoredTime(
  value: string,
  pattern: RegExp,
  asTimestamp: string,
  validTimes: Set<string>,
): boolean {
  if (validTimes.has(value)) return true;
  const time = Date.parse(asTimestamp);
  const valid =
    pattern.test(value) && !Number.isNaN(time) && new Date(time).toISOString() === asTimestamp;
  if (valid) {
    if (validTimes.size >= 100_000) validTimes.clear();
    validTimes.add(value);
  }
  return valid;
}

export const isCalendarDate = (value: string) =>
  isStoredTime(value, /^\d{4}-\d{2}-\d{2}$/, `${value}T00:00:00.000Z`, validDates);
export const isTimestamp = (value: string) =>
  isStoredTime(value, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, value, validTimestamps);

/** A saved query's stored definition, checked as `saved-query create` checks it (DESIGN §4.9). */
export function definitionOf(rule: ColumnRule, raw: unknown): Converted {
  const checked = checkSavedDefinition(raw);
  if (!checked.ok) return { problem: `${rule.name} ${checked.problem}` };
  const text = JSON.stringify(checked.definition);
  // An object in NDJSON is held as its JSON text: that is what is bounded.
  if (rule.maxLength !== undefined && longerThan(text, rule.maxLength))
    return {
      problem: `${rule.name} is longer than ${rule.maxLength.toLocaleString('en')} characters`,
    };
  return { value: text };
}

/** More than `max` code points (a string of `max` or fewer UTF-16 units never is). */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  // Code points: UTF-16 units less the second half of each surrogate pair.
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) points++;
    if (points > max) return true;
  }
  return false;
}

/** How far past the load's own clock a record's time may lie (DESIGN §4.11). */
export const FUTURE_SLACK_MS = 5 * 60_000;

/** The columns that order a record's versions, or date a deletion: none may lie in the future. */
export const VERSION_TIMES: ReadonlySet<string> = new Set([
  'updated_at',
  'pinned_at',
  'deleted_at',
]);

export interface RowOptions {
  workspaceId: string;
  format: SourceFormat;
  /** The latest `updated_at`, `pinned_at` or `deleted_at` this load takes (its clock + 5 min). */
  notAfter: string;
}

/** The `notAfter` of a load that starts at `nowMs`. */
export function latestVersionTime(nowMs: number): string {
  return new Date(nowMs + FUTURE_SLACK_MS).toISOString();
}

/** A value refused by a column's rule, with why (a converted value is returned as it is). */
class Refused {
  constructor(readonly problem: string) {}
}

/** A column's rule for one format, compiled: the converted value, or why it is refused. */
type CellCheck = (raw: unknown) => string | number | Refused;

interface CompiledColumn {
  name: string;
  required: boolean;
  /** `workspace_id`: set from the load, never read from the file. */
  workspace: boolean;
  /** A version time (VERSION_TIMES): none may lie past the load's clock. */
  versionTime: boolean;
  check: CellCheck;
}

const INTEGER_TEXT = /^-?\d+$/;

function integerCheck(rule: ColumnRule, format: SourceFormat): CellCheck {
  const [min, max] = RANGES[rule.type as 'integer' | 'bigint'];
  const refused = (raw: unknown) =>
    new Refused(`${rule.name} must be an integer, got ${shown(raw)}`);
  const ranged = (number: number, raw: unknown) =>
    number < min || number > max
      ? new Refused(`${rule.name} must be an integer from ${min} to ${max}, got ${shown(raw)}`)
      : number;
  return format === 'csv'
    ? (raw) => (INTEGER_TEXT.test(String(raw)) ? ranged(Number(raw), raw) : refused(raw))
    : (raw) => (typeof raw === 'number' && Number.isInteger(raw) ? ranged(raw, raw) : refused(raw));
}

function flagCheck(rule: ColumnRule, format: SourceFormat): CellCheck {
  const expected = format === 'csv' ? '0 or 1' : 'true, false, 0 or 1';
  const refused = (raw: unknown) =>
    new Refused(`${rule.name} must be ${expected}, got ${shown(raw)}`);
  return format === 'csv'
    ? (raw) => (raw === '0' || raw === '1' ? Number(raw) : refused(raw))
    : (raw) => (raw === 0 || raw === 1 || typeof raw === 'boolean' ? Number(raw) : refused(raw));
}

/** The one check of a text column's shape, if it has one (its format, else its values). */
function shapeOf(rule: ColumnRule): ((text: string) => boolean) | null {
  const values = rule.values ? new Set(rule.values) : null;
  const format =
    rule.format === 'id'
      ? isPlainId
      : rule.format === 'date'
        ? isCalendarDate
        : rule.format === 'timestamp'
          ? isTimestamp
          : rule.format === 'currency'
            ? (text: string) => CURRENCY_CODE.test(text)
            : null;
  if (format && values) return (text) => format(text) && values.has(text);
  return format ?? (values ? (text) => values.has(text) : null);
}

/** What a text value that fails its shape is told it must be. */
function expectedOf(rule: ColumnRule): (text: string) => string {
  const listed = rule.values ? `one of ${rule.values.join(', ')}` : '';
  const format =
    rule.format === 'id'
      ? [isPlainId, PLAIN_ID_SHAPE]
      : rule.format === 'date'
        ? [isCalendarDate, 'a date YYYY-MM-DD']
        : rule.format === 'timestamp'
          ? [isTimestamp, 'a UTC timestamp YYYY-MM-DDTHH:MM:SS.sssZ']
          : rule.format === 'currency'
            ? [
                (text: string) => CURRENCY_CODE.test(text),
                'a three-letter ISO 4217 code in capitals',
              ]
            : null;
  if (!format) return () => listed;
  const [fits, shape] = format as [(text: string) => boolean, string];
  return (text) => (fits(text) ? listed : shape);
}

function textCheck(rule: ColumnRule): CellCheck {
  const max = rule.maxLength;
  const tooLong =
    max === undefined
      ? null
      : new Refused(`${rule.name} is longer than ${max.toLocaleString('en')} characters`);
  if (rule.format === 'saved-definition')
    return (raw) => {
      if (tooLong && typeof raw === 'string' && longerThan(raw, max as number)) return tooLong;
      const converted = definitionOf(rule, raw);
      return 'problem' in converted ? new Refused(converted.problem) : converted.value;
    };
  const shape = shapeOf(rule);
  const expected = expectedOf(rule);
  const nul = new Refused(`${rule.name} contains a NUL character`);
  const surrogate = new Refused(`${rule.name} is not well-formed Unicode (a lone surrogate)`);
  return (raw) => {
    if (typeof raw !== 'string') {
      return new Refused(`${rule.name} must be a string, got ${shown(raw)}`);
    }
    if (tooLong && longerThan(raw, max as number)) return tooLong;
    if (raw.includes('\u0000')) return nul;
    if (LONE_SURROGATE.test(raw)) return surrogate;
    if (shape && !shape(raw))
      return new Refused(`${rule.name} must be ${expected(raw)}, got ${shown(raw)}`);
    return raw;
  };
}

function compileColumn(rule: ColumnRule, format: SourceFormat): CompiledColumn {
  return {
    name: rule.name,
    required: rule.required,
    workspace: rule.name === 'workspace_id',
    versionTime: VERSION_TIMES.has(rule.name),
    check:
      rule.type === 'integer' || rule.type === 'bigint'
        ? integerCheck(rule, format)
        : rule.type === 'flag'
          ? flagCheck(rule, format)
          : textCheck(rule),
  };
}

/** Each table's columns compiled once per format (the rules are the same for every file). */
const compiled: Record<SourceFormat, Map<SourceTable, readonly CompiledColumn[]>> = {
  csv: new Map(),
  ndjson: new Map(),
};

function columnsOf(table: SourceTable, format: SourceFormat): readonly CompiledColumn[] {
  let columns = compiled[format].get(table);
  if (!columns)
    compiled[format].set(
      table,
      (columns = SOURCE_RULES[table].map((r) => compileColumn(r, format))),
    );
  return columns;
}

/**
 * The row as stored, with only the columns the file carries (`workspace_id` set), its problems,
 * and the required columns it does not carry (DESIGN §4.11 "What a row means": an update keeps
 * the stored value of a column the file leaves out; a new record needs every required one, which
 * only the stored rows can tell, see stored-rows.ts). A column carried with an empty value (CSV)
 * or null (NDJSON) is null, and a required one so given is a problem. Each column's rule is
 * compiled once per table and format into one function (`columnsOf`), so a cell costs its own
 * checks and no walk through the rule's options, and a valid value allocates nothing.
 */
export function checkRow(
  table: SourceTable,
  values: Record<string, unknown>,
  options: RowOptions,
): { row: Row; problems: string[]; absent: string[] } {
  const row: Row = {};
  const problems: string[] = [];
  const absent: string[] = [];
  for (const column of columnsOf(table, options.format)) {
    const { name } = column;
    if (column.workspace) {
      row[name] = options.workspaceId;
      continue;
    }
    if (!Object.hasOwn(values, name)) {
      if (column.required) absent.push(name);
      continue;
    }
    const raw = values[name];
    row[name] = null;
    if (raw === null || raw === undefined) {
      if (column.required) problems.push(`missing value for ${name}`);
      continue;
    }
    const value = column.check(raw);
    if (value instanceof Refused) problems.push(value.problem);
    else if (column.versionTime && String(value) > options.notAfter)
      problems.push(futureProblem(name, String(value)));
    else row[name] = value;
  }
  // Every row names its record (a CSV header without `id` is reported once, by the parser).
  if (absent.includes('id') && options.format === 'ndjson') problems.push('missing column id');
  return { row, problems, absent };
}

/** A record's time later than the load's clock allows: it could never be corrected again. */
export function futureProblem(column: string, value: string): string {
  return `${column} ${JSON.stringify(value)} is in the future (more than 5 minutes after this load's clock): a record so dated could never be corrected by a later load`;
}
