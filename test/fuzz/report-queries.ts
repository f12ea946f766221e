import fc from 'fast-check';
import type { AnyOperation } from '../../src/operations/operation.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import type { FuzzContext } from './fuzz-context.js';
import type { FuzzRequest } from './fuzz-request.js';
import { hostileText, markedText } from './hostile-text.js';
import { mutatedJson, type Json } from './json-mutations.js';
import { isoDate, sometimes, validValue, type Schema } from './schema-values.js';

/**
 * Report queries built from the catalog's real keys, so that they pass validation and reach the
 * SQL with hostile filter values (NUL, lone surrogates, long text), and now and then a wrong
 * count of values or a dimension of another view (SPEC "Refusals": bad_filter).
 */

const OPERATORS = ['eq', 'neq', 'gte', 'lte', 'between', 'in'] as const;

const filterValue: fc.Arbitrary<Json> = fc.oneof(
  hostileText.filter((t) => t.length <= 256),
  fc.integer(),
  isoDate,
);

function filterOn(dimension: fc.Arbitrary<string>): fc.Arbitrary<Json> {
  return fc
    .record({
      dimension,
      operator: fc.constantFrom(...OPERATORS),
      values: fc.array(filterValue, { minLength: 5, maxLength: 5 }),
      inCount: fc.integer({ min: 1, max: 4 }),
      wrongCount: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true)),
    })
    .map(({ dimension, operator, values, inCount, wrongCount }) => {
      const count = operator === 'in' ? inCount : operator === 'between' ? 2 : 1;
      return { dimension, operator, values: values.slice(0, wrongCount ? (count + 1) % 5 : count) };
    });
}

export function reportQueryBody(ctx: FuzzContext): fc.Arbitrary<Json> {
  const metrics = ctx.metrics.filter((m) => m.dimensions.length > 0);
  return fc.constantFrom(...metrics).chain(({ key, dimensions }) => {
    const own = fc.constantFrom(...dimensions);
    const dimension = fc.oneof(
      { weight: 8, arbitrary: own },
      fc.constantFrom(...ctx.pools.dimensions),
      markedText,
    );
    return fc
      .record({
        dimensions: fc.subarray(dimensions, { maxLength: 3 }),
        filters: fc.array(filterOn(dimension), { minLength: 1, maxLength: 3 }),
        timeGrain: sometimes(fc.constantFrom(null, 'day', 'week', 'month', 'quarter', 'year')),
        order: sometimes(fc.constantFrom('asc', 'desc').map((direction) => [{ key, direction }])),
        limit: sometimes(fc.integer({ min: 1, max: 1_000 })),
      })
      .map((query) => ({
        query: JSON.parse(JSON.stringify({ metrics: [key], ...query })) as Json,
      }));
  });
}

/** Schema-valid input of any operation; report queries also from the catalog. */
export function operationInput(op: AnyOperation, ctx: FuzzContext): fc.Arbitrary<Json> {
  const fromSchema = validValue(op.input as Schema, ctx.pools);
  if (!('query' in op.input.properties)) return fromSchema;
  return fc.oneof(fromSchema, reportQueryBody(ctx));
}

/** A report query from the catalog (or a mutation of one), to every operation taking one. */
export function reportRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const body = fc.oneof(
    { weight: 3, arbitrary: reportQueryBody(ctx) },
    { weight: 1, arbitrary: reportQueryBody(ctx).chain(mutatedJson) },
  );
  const posts = OPERATIONS.filter((op) => op.method === 'POST' && 'query' in op.input.properties);
  return fc
    .tuple(fc.constantFrom(...posts.map((op) => op.path)), body, fc.constantFrom(...ctx.bearers))
    .map(([url, json, authorization]) => ({
      method: 'POST',
      url,
      headers: { authorization, 'content-type': 'application/json' },
      payload: JSON.stringify(json),
    }));
}
