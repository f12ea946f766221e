import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { describeRule } from '../../src/operations/strictness.js';

/** The rule text of a strictness 404, written from a schema alone (no value, no server). */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

const RULES: [string, unknown, string][] = [
  [
    'an integer with both bounds',
    Type.Integer({ minimum: 1, maximum: 50 }),
    'a whole number from 1 to 50',
  ],
  ['an integer with a lower bound', Type.Integer({ minimum: 1 }), 'a whole number of at least 1'],
  ['an integer with an upper bound', Type.Integer({ maximum: 0 }), 'a whole number of at most 0'],
  ['a number', Type.Number(), 'a number'],
  ['text with no bounds', Type.String(), 'text'],
  ['text with a zero minimum', Type.String({ minLength: 0 }), 'text'],
  [
    'text of bounded length',
    Type.String({ minLength: 1, maxLength: 64 }),
    'text of 1 to 64 characters',
  ],
  ['a date', Type.String({ format: 'date' }), 'a calendar date written YYYY-MM-DD'],
  ['a pattern', Type.String({ pattern: '^[a-z]+$' }), 'text matching ^[a-z]+$'],
  ['true or false', Type.Boolean(), 'true or false'],
  ['a literal', Type.Literal('relative'), 'exactly "relative"'],
  ['literals', Type.Union([Type.Literal('asc'), Type.Literal('desc')]), 'one of: asc, desc'],
  [
    'a nullable enumeration',
    Type.Union([Type.Union([Type.Literal('day'), Type.Literal('week')]), Type.Null()]),
    'one of: day, week, or null',
  ],
  [
    'a list with bounds and distinct items',
    Type.Array(Type.String({ maxLength: 5 }), { minItems: 1, maxItems: 3, uniqueItems: true }),
    'a list of 1 to 3 distinct items, each text of at most 5 characters',
  ],
  ['an unbounded list', Type.Array(Type.Integer()), 'a list of items, each a whole number'],
  [
    'an object with required, optional and constant members',
    Type.Object({
      kind: Type.Literal('quarter'),
      quarter: Type.Integer(),
      year: Type.Optional(Type.Integer()),
    }),
    'an object {kind: "quarter", quarter, year?}',
  ],
  ['an empty object', Type.Object({}), 'an empty object {}'],
];

describe('describeRule', () => {
  for (const [what, schema, text] of RULES)
    it(`writes ${what} as "${text}"`, () => assert.equal(describeRule(plain(schema)), text));
});
