/**
 * The shape checks of stored definitions (a catalog table entry's, a saved query's) by the
 * validator the API checks input with (src/schema-check.ts), held against TypeBox's own
 * `Value.Check`, which they replaced: any mutation of a valid definition (a member added,
 * removed, replaced or given another type, at any depth, hostile text and deep arrays) gets the
 * same verdict from both.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { schemaCheck } from '../../src/schema-check.js';
import { DEFAULT_METRICS } from '../../src/semantic/default-catalog.js';
import { MetricDefinitionSchema } from '../../src/semantic/definitions.js';
import { SavedDefinitionSchema } from '../../src/semantic/query-schema.js';
import { mutatedJson, type Json } from '../fuzz/json-mutations.js';

const SAVED: Json[] = [
  { query: { metrics: ['spend'] } },
  {
    query: {
      metrics: ['spend', 'hours'],
      dimensions: ['currency', 'supplier'],
      filters: [
        { dimension: 'invoice_status', operator: 'in', values: ['issued', 'pushed'] },
        { dimension: 'invoice_period', operator: 'between', values: ['2026-01-01', '2026-03-31'] },
        { dimension: 'week', operator: 'gte', values: [3] },
      ],
      timeGrain: 'month',
      timeRange: { from: '2024-02-29', to: '2026-06-30' },
      order: [{ key: 'spend', direction: 'desc' }],
      limit: 1000,
    },
    period: { kind: 'relative', unit: 'year', offset: -24 },
  },
  {
    query: { metrics: ['hours'], timeGrain: null, timeRange: null },
    period: { kind: 'quarter', quarter: 4, year: 2100 },
  },
];

function agreeOn(schema: TSchema, valid: Json[]) {
  const check = schemaCheck(schema);
  for (const value of valid) assert.equal(check(value), true, JSON.stringify(value));
  fc.assert(
    fc.property(
      fc.constantFrom(...valid).chain((base) => mutatedJson(base)),
      (value) => {
        assert.equal(check(value), Value.Check(schema, value), JSON.stringify(value));
      },
    ),
    { numRuns: 2_000 },
  );
}

describe('stored definitions are checked as TypeBox checked them', () => {
  it('a metric definition: every default one valid, any mutation of one judged alike', () => {
    agreeOn(MetricDefinitionSchema, Object.values(DEFAULT_METRICS) as unknown as Json[]);
  });

  it("a saved query's definition: any mutation of a valid one judged alike", () => {
    agreeOn(SavedDefinitionSchema, SAVED);
  });

  it('dates are checked as dates (the 29th of February in leap years only)', () => {
    const check = schemaCheck(SavedDefinitionSchema);
    const ranged = (from: string) => ({
      query: { metrics: ['spend'], timeRange: { from, to: '2026-12-31' } },
    });
    for (const from of ['2024-02-29', '2000-02-29', '2026-12-31'])
      assert.equal(check(ranged(from)), true, from);
    for (const from of [
      '2026-02-29',
      '1900-02-29',
      '2026-13-01',
      '2026-04-31',
      '2026-1-01',
      '20260101',
    ])
      assert.equal(check(ranged(from)), false, from);
  });
});
