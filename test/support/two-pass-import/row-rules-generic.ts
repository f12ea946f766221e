/**
 * The row rules as they were before they were compiled per column (src/importer/row-rules.ts):
 * each cell walks its rule's options. Kept as the two-pass oracle's checker, and as what the
 * compiled rules are compared with (test/importer/compiled-rules.test.ts).
 */
import { CURRENCY_CODE, isPlainId, PLAIN_ID_SHAPE } from '../../../src/records/plain-values.js';
import type { Row } from '../../../src/store/sink.js';
import {
  SOURCE_RULES,
  type ColumnRule,
  type SourceTable,
} from '../../../src/importer/import-tables.js';
import { shown } from '../../../src/importer/import-problems.js';
import {
  definitionOf,
  futureProblem,
  isCalendarDate,
  isTimestamp,
  LONE_SURROGATE,
  longerThan,
  RANGES,
  VERSION_TIMES,
  type Converted,
  type RowOptions,
} from '../../../src/importer/row-rules.js';
import type { SourceFormat } from '../../../src/importer/source-files.js';

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
