/**
 * Golden-test helpers on the API side: run a report query to the end (following row-budget
 * cursors), turn its rows into group key → value, and compare with the reference.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Comparison, DimValue, Grain } from './golden-reference.js';
import { groupKey } from './golden-reference.js';
import { post } from './harness.js';

export const QUERY_PATH = '/api/v1/reports/query';

/** The service clock of the golden tests (startHarness `now`): the day after asOf, noon UTC. */
export const GOLDEN_NOW = new Date('2026-07-01T12:00:00.000Z');
export const goldenClock = () => new Date(GOLDEN_NOW);
export const GOLDEN_TODAY = '2026-07-01';

export interface ApiFilter {
  dimension: string;
  operator: 'eq' | 'neq' | 'in' | 'gte' | 'lte' | 'between';
  values: (string | number)[];
}

export interface ApiQuery {
  metrics: string[];
  dimensions?: string[];
  filters?: ApiFilter[];
  timeGrain?: Grain | null;
  timeRange?: { from: string; to: string } | null;
  order?: { key: string; direction: 'asc' | 'desc' }[];
  limit?: number;
}

export type ApiRow = Record<string, unknown>;

export interface ApiResult {
  rows: ApiRow[];
  /** The first page's data (status, columns, metricDefinitions, semanticQuery...). */
  first: Record<string, unknown> & { status: string; columns: string[] };
  pages: number;
}

/** Runs a query and every row-budget continuation; fails on a refusal or a query_limit cut. */
export async function runAll(
  app: FastifyInstance,
  token: string,
  query: ApiQuery,
): Promise<ApiResult> {
  const rows: ApiRow[] = [];
  let cursor: string | undefined;
  let first: ApiResult['first'] | undefined;
  let pages = 0;
  for (;;) {
    const answer = await post(app, QUERY_PATH, token, cursor ? { query, cursor } : { query });
    assert.equal(answer.status, 200, answer.raw);
    const data = answer.body.data;
    assert.ok(data.status === 'ok' || data.status === 'empty', answer.raw);
    first ??= data;
    pages += 1;
    (data.rows as ApiRow[]).forEach((row, i) => {
      for (const [key, value] of Object.entries(row)) {
        if (!isEnvelope(value)) continue;
        // DESIGN §4.6: the path is rooted at this response's `data`.
        assert.deepEqual(
          (value as { source?: unknown }).source,
          { operationId: 'run_semantic_query', path: `$.rows[${i}].${key}` },
          `envelope source of rows[${i}].${key} on page ${pages}`,
        );
      }
    });
    rows.push(...(data.rows as ApiRow[]));
    if (data.truncatedBy === 'row_budget') {
      assert.equal(typeof data.nextCursor, 'string', answer.raw);
      cursor = data.nextCursor;
      continue;
    }
    assert.equal(data.truncated, false, `query cut short by ${data.truncatedBy}`);
    return { rows, first: first as ApiResult['first'], pages };
  }
}

const isEnvelope = (v: unknown): v is { kind: string; value: string } =>
  typeof v === 'object' &&
  v !== null &&
  (v as { kind?: unknown }).kind === 'vms.provenance' &&
  typeof (v as { value?: unknown }).value === 'string';

/** A dimension value as plain text: envelopes for people-typed dimensions, strings otherwise. */
export function dimValue(row: ApiRow, dimension: string, text: boolean): DimValue {
  const v = row[dimension];
  if (v === null) return null;
  if (text) {
    assert.ok(isEnvelope(v), `${dimension} must be a provenance envelope: ${JSON.stringify(v)}`);
    return v.value;
  }
  assert.equal(typeof v, 'string', `${dimension} must be a plain string: ${JSON.stringify(v)}`);
  return v as string;
}

/** A metric value as a number: JSON numbers and numeric strings are both accepted (SPEC). */
export function metricNumber(v: unknown, label = 'metric'): number | null {
  if (v === null) return null;
  if (typeof v === 'number') return v;
  assert.equal(typeof v, 'string', `${label} must be a number, numeric string or null`);
  assert.match(v as string, /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, `${label} is not numeric`);
  return Number(v);
}

/** The API's rows as group key → value of one metric; a key may appear once only. */
export function actualGroups(
  rows: ApiRow[],
  dimensions: string[],
  textDimensions: string[],
  metricKey: string,
): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const row of rows) {
    const key = groupKey(dimensions.map((d) => dimValue(row, d, textDimensions.includes(d))));
    assert.ok(!out.has(key), `group ${key} appears twice`);
    out.set(key, metricNumber(row[metricKey], metricKey));
  }
  return out;
}

/** Whether two values agree under a comparison (exact; 1e-9 relative; 1e-6 days absolute). */
export function agrees(actual: number | null, expected: number | null, how: Comparison): boolean {
  if (actual === null || expected === null) return actual === expected;
  if (how === 'exact') return actual === expected;
  if (how === 'days') return Math.abs(actual - expected) <= 1e-6;
  return Math.abs(actual - expected) <= 1e-9 * Math.max(Math.abs(actual), Math.abs(expected), 1e-3);
}

export function assertGroupsMatch(
  actual: Map<string, number | null>,
  expected: Map<string, number | null>,
  how: Comparison,
  label: string,
) {
  assert.deepEqual(
    [...actual.keys()].sort(),
    [...expected.keys()].sort(),
    `${label}: the API's groups differ from the reference's`,
  );
  const wrong: string[] = [];
  for (const [key, want] of expected) {
    const got = actual.get(key) as number | null;
    if (!agrees(got, want, how)) wrong.push(`${key}: api ${got}, reference ${want}`);
  }
  assert.deepEqual(wrong, [], `${label}: ${wrong.length} of ${expected.size} groups differ`);
}

/** Code-point order of two strings (not UTF-16 code units). */
export function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}
