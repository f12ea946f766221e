import fc from 'fast-check';
import { OPERATIONS } from '../../src/operations/registry.js';
import type { AnyOperation } from '../../src/operations/operation.js';
import { validInput } from '../support/harness.js';
import { hostileText, marker, queryString } from './hostile-text.js';
import { mutate, unknownKey, hostileJson, type Json } from './json-mutations.js';
import { isoDate, refusedQueryText, validValue, type Schema } from './schema-values.js';

/**
 * Requests that break one rule of SPEC "Errors" / DESIGN §4.2 on top of valid input, sent with
 * a staff token that holds every scope: each must be 404 `not_found` before the operation runs.
 */
export interface Violation {
  rule: string;
  url: string;
  payload?: string;
  contentType?: string;
}

/** The rules, in families: a property each, so that one rule broken does not hide another. */
export const FAMILIES = {
  parameters: 'an unknown or repeated query parameter',
  values: 'a non-canonical integer, a value outside its enumeration, an empty or over-long string',
  members: 'a body member unknown at any depth, removed, or of another type',
  transport: 'a Content-Type other than application/json, or a query parameter on a POST',
  periods:
    'timeRange.from after timeRange.to, an invalid date, period with timeRange, a bad period',
} as const;
export type Family = keyof typeof FAMILIES;

type Pair = [string, string];
type Rule = fc.Arbitrary<{ rule: string; pairs: (base: Pair[]) => Pair[] }>;

function getViolations(
  op: AnyOperation,
  pools: Record<string, string[]>,
  family: Family,
): fc.Arbitrary<Violation>[] {
  const properties = Object.entries(op.input.properties as Record<string, Schema>);
  const valid = (key: string, schema: Schema) => validValue(schema, pools, key).map(String);
  const base: fc.Arbitrary<Pair[]> = fc
    .tuple(
      ...properties.map(([key, schema]) => {
        const pair = valid(key, schema).map((v): Pair[] => [[key, v]]);
        return op.input.required?.includes(key) ? pair : fc.oneof(fc.constant<Pair[]>([]), pair);
      }),
    )
    .map((parts) => parts.flat());
  const rules: Rule[] = [];
  if (family === 'parameters')
    rules.push(
      fc
        .tuple(
          fc.oneof(marker, fc.constantFrom('__proto__', 'constructor', 'access_token', 'limit[]')),
          hostileText,
        )
        .map(([key, value]) => ({
          rule: `unknown parameter ${JSON.stringify(key)}`,
          pairs: (b) => [...b, [key, value]],
        })),
    );
  for (const [key, schema] of properties) {
    const refused = refusedQueryText(schema);
    if (family === 'parameters')
      rules.push(
        fc.tuple(valid(key, schema), valid(key, schema)).map(([a, b]) => ({
          rule: `repeated ${key}`,
          pairs: (pairs) => [...pairs.filter(([k]) => k !== key), [key, a], [key, b]],
        })),
      );
    else if (family === 'values' && refused)
      rules.push(
        refused.map((text) => ({
          rule: `${key} ${JSON.stringify(text)}`,
          pairs: (pairs) => [...pairs.filter(([k]) => k !== key), [key, text]],
        })),
      );
  }
  if (rules.length === 0) return [];
  return [
    fc.tuple(base, fc.oneof(...rules)).map(([pairs, { rule, pairs: apply }]) => ({
      rule,
      url: op.path + queryString(apply(pairs)),
    })),
  ];
}

const INVALID_DATES = [
  '2025-02-29',
  '2025-04-31',
  '2025-13-01',
  '2025-00-10',
  '2025-1-1',
  '20250101',
  '2025-02-03T00:00:00Z',
];

const BAD_PERIODS: Json[] = [
  { kind: 'relative', unit: 'week', offset: 0 },
  { kind: 'relative', unit: 'month', offset: 1 },
  { kind: 'relative', unit: 'month', offset: -25 },
  { kind: 'relative', unit: 'month' },
  { kind: 'quarter', quarter: 5 },
  { kind: 'quarter', quarter: 1, year: 1999 },
  { kind: 'quarter', quarter: 1, unit: 'month' },
  { kind: 'fiscal', quarter: 1 },
  {},
];

/** DESIGN §4.2's rules on `query.timeRange` and `period`, for bodies that have them. */
function reportRules(body: Json): fc.Arbitrary<{ rule: string; body: Json }>[] {
  const query = (body as { query?: Record<string, Json> }).query;
  if (!query) return [];
  const withQuery = (extra: Record<string, Json>, period?: Json) => ({
    ...(body as Record<string, Json>),
    query: { ...query, ...extra },
    ...(period === undefined ? {} : { period }),
  });
  const ordered = fc
    .tuple(isoDate, isoDate)
    .filter(([a, b]) => a !== b)
    .map(([a, b]) => (a < b ? [a, b] : [b, a]));
  return [
    ordered.map(([early, late]) => ({
      rule: 'timeRange.from after timeRange.to',
      body: withQuery({ timeRange: { from: late, to: early } }),
    })),
    fc
      .tuple(fc.constantFrom(...INVALID_DATES), isoDate, fc.boolean())
      .map(([bad, good, first]) => ({
        rule: `timeRange with the date ${bad}`,
        body: withQuery({ timeRange: first ? { from: bad, to: good } : { from: good, to: bad } }),
      })),
    ordered.map(([from, to]) => ({
      rule: 'both period and query.timeRange',
      body: withQuery({ timeRange: { from, to } }, { kind: 'relative', unit: 'month', offset: 0 }),
    })),
    fc.constantFrom(...BAD_PERIODS).map((period) => ({
      rule: `period ${JSON.stringify(period)}`,
      body: withQuery({}, period),
    })),
  ];
}

const NOT_JSON_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'text/json',
  'application/xml',
];

function postViolations(op: AnyOperation, family: Family): fc.Arbitrary<Violation>[] {
  // validInput holds required members only: removing any of them breaks the schema.
  const body = validInput(op) as Json;
  const json = (rule: string, b: Json | undefined): Violation => ({
    rule,
    url: op.path,
    payload: JSON.stringify(b),
  });
  if (family === 'members')
    return [
      fc
        .tuple(fc.nat(), unknownKey, hostileJson)
        .map(([at, key, value]) =>
          json(`unknown member ${JSON.stringify(key)}`, mutate(body, 'add', at, key, value)),
        ),
      fc.nat().map((at) => json('a member removed', mutate(body, 'remove', at, '', null))),
      fc.nat().map((at) => json('a member of another type', mutate(body, 'retype', at, '', null))),
    ];
  if (family === 'transport')
    return [
      fc.constantFrom(...NOT_JSON_TYPES).map((type) => ({
        ...json(`Content-Type ${type}`, body),
        contentType: type,
      })),
      fc
        .tuple(fc.oneof(marker, fc.constantFrom(...Object.keys(body as object))), fc.string())
        .map(([k, v]) => ({
          ...json(`query parameter ${JSON.stringify(k)} on a POST`, body),
          url: op.path + queryString([[k, v]]),
        })),
    ];
  if (family === 'periods')
    return reportRules(body).map((arb) => arb.map(({ rule, body: b }) => json(rule, b)));
  return [];
}

/** Violations of one family on every operation of the registry that can have one. */
export function strictnessViolation(
  family: Family,
  pools: Record<string, string[]>,
): fc.Arbitrary<Violation> {
  return fc.oneof(
    ...OPERATIONS.flatMap((op) =>
      op.method === 'GET' ? getViolations(op, pools, family) : postViolations(op, family),
    ),
  );
}
