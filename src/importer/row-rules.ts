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

type Converted = { value: string | number } | { problem: string };

const RANGES = {
  integer: [-(2 ** 31), 2 ** 31 - 1],
  bigint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
} as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

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

const isCalendarDate = (value: string) =>
  isStoredTime(value, /^\d{4}-\d{2}-\d{2}$/, `${value}T00:00:00.000Z`, validDates);
const isTimestamp = (value: string) =>
  isStoredTime(value, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, value, validTimestamps);

function integerOf(rule: ColumnRule, raw: unknown, format: SourceFormat): Converted {
  const number =
    format === 'csv' ? (/^-?\d+$/.test(String(raw)) ? Number(raw) : NaN) : (raw as number);
  if (typeof number !== 'number' || !Number.isInteger(number))
    return { problem: `${rule.name} must be an integer, got ${shown(raw)}` };
  const [min, max] = RANGES[rule.type as 'integer' | 'bigint'];
  if (number < min || number > max)
    return { problem: `${rule.name} must be an integer from ${min} to ${max}, got ${shown(raw)}` };
  return { value: number };
}

function flagOf(rule: ColumnRule, raw: unknown, format: SourceFormat): Converted {
  if (format === 'csv' && (raw === '0' || raw === '1')) return { value: Number(raw) };
  if (format === 'ndjson' && (raw === 0 || raw === 1 || typeof raw === 'boolean'))
    return { value: Number(raw) };
  const expected = format === 'csv' ? '0 or 1' : 'true, false, 0 or 1';
  return { problem: `${rule.name} must be ${expected}, got ${shown(raw)}` };
}

/** A saved query's stored definition, checked as `saved-query create` checks it (DESIGN §4.9). */
function definitionOf(rule: ColumnRule, raw: unknown): Converted {
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
function longerThan(text: string, max: number): boolean {
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

function textOf(rule: ColumnRule, raw: unknown): Converted {
  if (typeof raw === 'string' && rule.maxLength !== undefined && longerThan(raw, rule.maxLength))
    return {
      problem: `${rule.name} is longer than ${rule.maxLength.toLocaleString('en')} characters`,
    };
  if (rule.format === 'saved-definition') return definitionOf(rule, raw);
  if (typeof raw !== 'string')
    return { problem: `${rule.name} must be a string, got ${shown(raw)}` };
  if (raw.includes('\u0000')) return { problem: `${rule.name} contains a NUL character` };
  if (LONE_SURROGATE.test(raw))
    return { problem: `${rule.name} is not well-formed Unicode (a lone surrogate)` };
  const bad = (expected: string): Converted => ({
    problem: `${rule.name} must be ${expected}, got ${shown(raw)}`,
  });
  if (rule.format === 'id' && !isPlainId(raw)) return bad(PLAIN_ID_SHAPE);
  if (rule.format === 'date' && !isCalendarDate(raw)) return bad('a date YYYY-MM-DD');
  if (rule.format === 'timestamp' && !isTimestamp(raw))
    return bad('a UTC timestamp YYYY-MM-DDTHH:MM:SS.sssZ');
  if (rule.format === 'currency' && !CURRENCY_CODE.test(raw))
    return bad('a three-letter ISO 4217 code in capitals');
  if (rule.values && !rule.values.includes(raw)) return bad(`one of ${rule.values.join(', ')}`);
  return { value: raw };
}

function convert(rule: ColumnRule, raw: unknown, format: SourceFormat): Converted {
  if (rule.type === 'integer' || rule.type === 'bigint') return integerOf(rule, raw, format);
  if (rule.type === 'flag') return flagOf(rule, raw, format);
  return textOf(rule, raw);
}

/** How far past the load's own clock a record's time may lie (DESIGN §4.11). */
export const FUTURE_SLACK_MS = 5 * 60_000;

/** The columns that order a record's versions, or date a deletion: none may lie in the future. */
const VERSION_TIMES: ReadonlySet<string> = new Set(['updated_at', 'pinned_at', 'deleted_at']);

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

/**
 * The row as stored, with only the columns the file carries (`workspace_id` set), its problems,
 * and the required columns it does not carry (DESIGN §4.11 "What a row means": an update keeps
 * the stored value of a column the file leaves out; a new record needs every required one, which
 * only the stored rows can tell, see stored-rows.ts). A column carried with an empty value (CSV)
 * or null (NDJSON) is null, and a required one so given is a problem.
 */
export function checkRow(
  table: SourceTable,
  values: Record<string, unknown>,
  options: RowOptions,
): { row: Row; problems: string[]; absent: string[] } {
  const row: Row = {};
  const problems: string[] = [];
  const absent: string[] = [];
  for (const rule of SOURCE_RULES[table]) {
    if (rule.name === 'workspace_id') {
      row[rule.name] = options.workspaceId;
      continue;
    }
    if (!Object.hasOwn(values, rule.name)) {
      if (rule.required) absent.push(rule.name);
      continue;
    }
    const raw = values[rule.name];
    row[rule.name] = null;
    if (raw === null || raw === undefined) {
      if (rule.required) problems.push(`missing value for ${rule.name}`);
      continue;
    }
    const converted = convert(rule, raw, options.format);
    if ('problem' in converted) problems.push(converted.problem);
    else if (VERSION_TIMES.has(rule.name) && String(converted.value) > options.notAfter)
      problems.push(futureProblem(rule.name, String(converted.value)));
    else row[rule.name] = converted.value;
  }
  // Every row names its record (a CSV header without `id` is reported once, by the parser).
  if (absent.includes('id') && options.format === 'ndjson') problems.push('missing column id');
  return { row, problems, absent };
}

/** A record's time later than the load's clock allows: it could never be corrected again. */
export function futureProblem(column: string, value: string): string {
  return `${column} ${JSON.stringify(value)} is in the future (more than 5 minutes after this load's clock): a record so dated could never be corrected by a later load`;
}
