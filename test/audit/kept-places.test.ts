/**
 * The trail's kept parameters with each schema's places worked out once (kept-params.ts) are what
 * walking the schema afresh for every value gave (test/support/kept-params-walk.ts), for values
 * shaped by the schemas (their keys, their listed values, dates) with noise at any depth (other
 * text, numbers, keys no schema names, `__proto__`): a report query, and every operation's
 * parameters.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { keptParams, keptQuery } from '../../src/audit/kept-params.js';
import type { AnyOperation } from '../../src/operations/operation.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { QuerySchema } from '../../src/semantic/query-schema.js';
import { walkedMember, walkedValue } from '../support/kept-params-walk.js';

const key = fc.oneof(
  fc.constantFrom('__proto__', 'metrics', 'from', 'op'),
  fc.string({ maxLength: 6 }),
);
const leaf = fc.oneof(
  fc.constantFrom('2026-01-31', '2026-01-31T10:00:00Z', 'month', 'Kwame Quinn 🙂', '', '__proto__'),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
}));

/** Values `schema` allows (any of its members given, at times a key it does not name), noise at any depth. */
function shaped(schema: TSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = schema as {
    anyOf?: TSchema[];
    const?: unknown;
    enum?: unknown[];
    type?: string;
    format?: string;
    properties?: Record<string, TSchema>;
    items?: TSchema;
  };
  if (depth > 6) return leaf;
  let own: fc.Arbitrary<unknown> = leaf;
  if (s.anyOf) own = fc.oneof(...s.anyOf.map((branch) => shaped(branch, depth + 1)));
  else if ('const' in s) own = fc.constant(s.const);
  else if (s.enum) own = fc.constantFrom(...s.enum);
  else if (s.type === 'object' && s.properties) {
    const members = Object.fromEntries(
      Object.entries(s.properties).map(([name, member]) => [name, shaped(member, depth + 1)]),
    );
    own = fc
      .tuple(fc.record(members, { requiredKeys: [] }), fc.option(fc.tuple(key, value)))
      .map(([record, extra]) => (extra ? { ...record, [extra[0]]: extra[1] } : record));
  } else if (s.type === 'array' && s.items)
    own = fc.array(shaped(s.items, depth + 1), { maxLength: 3 });
  else if (s.type === 'string' && s.format === 'date') own = fc.constant('2026-01-31');
  return fc.oneof({ weight: 5, arbitrary: own }, { weight: 1, arbitrary: value });
}

const nothingShown = { answered: false, shown: false, revealed: [] as { id: string }[] };

describe('kept parameters, each schema worked out once', () => {
  it('keeps of a report query what walking its schema kept', () => {
    fc.assert(
      fc.property(shaped(QuerySchema), (query) => {
        assert.deepEqual(keptQuery(query, false), walkedValue([QuerySchema], query));
      }),
      { numRuns: 400 },
    );
  });

  it("keeps of every operation's parameters what walking its input's schema kept", () => {
    const operationAndInput = fc.oneof(
      ...OPERATIONS.map((op) =>
        fc
          .tuple(fc.constant(op), shaped(op.input as TSchema))
          .filter(
            (pair): pair is [AnyOperation, Record<string, unknown>] =>
              typeof pair[1] === 'object' && pair[1] !== null && !Array.isArray(pair[1]),
          ),
      ),
    );
    fc.assert(
      fc.property(operationAndInput, ([op, given]) => {
        const { params } = keptParams(op, given, nothingShown);
        for (const [name, member] of Object.entries(given)) {
          if (name === 'cursor' || member === undefined) continue;
          if (op.idParams && Object.hasOwn(op.idParams, name)) continue;
          if (name === 'query' && op.runsReports) continue;
          const kept = Object.getOwnPropertyDescriptor(params, name)?.value;
          assert.deepEqual(kept, walkedMember(op.input as TSchema, name, member), name);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps a member or parameter named __proto__ as one, and no id claim for it', () => {
    const op = OPERATIONS.find((o) => o.idParams && Object.keys(o.idParams).length > 0)!;
    const { params, claims } = keptParams(op, JSON.parse('{"__proto__":"x"}'), nothingShown);
    assert.equal(Object.getPrototypeOf(params), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(params, '__proto__')?.value, {
      text: true,
      length: 1,
    });
    assert.deepEqual(claims, []);
    const kept = keptQuery(JSON.parse('{"__proto__":{"x":"typed"},"limit":5}'), false);
    assert.deepEqual(Object.keys(kept as object), ['__proto__', 'limit']);
    assert.equal(Object.getPrototypeOf(kept), Object.prototype);
    assert.deepEqual((kept as Record<string, unknown>)['__proto__'], {
      x: { text: true, length: 5 },
    });
  });
});
