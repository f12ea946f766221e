import { after, before } from 'node:test';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/operations/registry.js';
import {
  callOperation,
  startHarness,
  type Answer,
  type Dialect,
  type Harness,
} from '../support/harness.js';
import { sendAndCheck, type FuzzRequest } from './fuzz-request.js';
import { marker } from './hostile-text.js';
import type { Pools } from './schema-values.js';

/**
 * What the fuzzers draw from, read from a running harness: every role's token, real ids and
 * cursors (from every list the registry has) and the catalog's keys.
 */
export interface FuzzContext {
  /** Valid bearer headers, one per token of the harness (every role and scope set). */
  bearers: string[];
  /** An `Authorization` value: valid, malformed, unknown, absent (undefined) or given twice. */
  authorization: fc.Arbitrary<string | string[] | undefined>;
  pools: Pools;
  /** The catalog's metrics (evaluative ones included) and the dimensions each can be grouped by. */
  metrics: { key: string; dimensions: string[] }[];
}

const BASE64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];

function authorizations(tokens: string[]): fc.Arbitrary<string | string[] | undefined> {
  const token = fc.constantFrom(...tokens);
  const one: fc.Arbitrary<string> = fc.oneof(
    { withCrossShrink: true },
    { weight: 12, arbitrary: token.map((t) => `Bearer ${t}`) },
    fc
      .tuple(
        fc.constantFrom(
          'bearer ',
          'BEARER ',
          'Bearer  ',
          'Bearer\t',
          'Basic ',
          'Token ',
          '',
          ' Bearer ',
        ),
        token,
        fc.constantFrom('', ' ', 'x', ',', ' Bearer x'),
      )
      .map(([scheme, t, tail]) => scheme + t + tail),
    token.map((t) => `Bearer ${t.slice(0, -1)}`),
    fc
      .string({ unit: fc.constantFrom(...BASE64URL), minLength: 43, maxLength: 43 })
      .map((s) => `Bearer vmsr_${s}`),
    marker.map((m) => `Bearer ${m}`),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      '',
      'Basic dXNlcjpwYXNz',
      `Bearer vmsr_${'A'.repeat(4_000)}`,
    ),
  );
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 10, arbitrary: one },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.tuple(one, one) },
  );
}

/** Calls every list of the registry (GET, no required input) to gather ids, cursors, keys. */
export async function fuzzContext(harness: Harness): Promise<FuzzContext> {
  const ids = new Set<string>();
  const cursors = new Set<string>();
  const metrics = new Map<string, string[]>();
  const dimensions = new Set<string>();
  for (const op of OPERATIONS) {
    if (op.method !== 'GET' || (op.input.required ?? []).length > 0) continue;
    const input = 'limit' in op.input.properties ? { limit: 2 } : {};
    const { data } = (await callOperation(harness.app, op, harness.tokens.staff, input)).body;
    for (const item of data.items ?? []) ids.add(item.id);
    if (data.nextCursor) cursors.add(data.nextCursor);
    for (const m of data.metrics ?? []) metrics.set(m.key, m.dimensions);
    for (const d of data.dimensions ?? []) dimensions.add(d.key);
  }
  // A cursor altered by one character, cut short or grown is malformed: invalid_cursor.
  for (const c of [...cursors])
    for (const altered of [
      c.slice(0, -1),
      `${c}A`,
      c.toUpperCase(),
      `${c.slice(0, -1)}${c.endsWith('A') ? 'B' : 'A'}`,
    ])
      cursors.add(altered);
  const tokens = Object.values(harness.tokens);
  const keys = [...metrics.keys(), ...dimensions];
  return {
    bearers: tokens.map((t) => `Bearer ${t}`),
    authorization: authorizations(tokens),
    metrics: [...metrics].map(([key, dims]) => ({ key, dimensions: dims })),
    // Member names of the inputs (SPEC "Endpoints") whose values come from the service itself.
    pools: {
      metrics: [...metrics.keys()],
      dimensions: [...dimensions],
      dimension: [...dimensions],
      key: keys,
      id: [...ids],
      savedQueryId: [...ids],
      cursor: [...cursors],
    },
  };
}

export interface FuzzSuite {
  readonly h: Harness;
  readonly ctx: FuzzContext;
  /** A property body: sends the generated request, then checks its answer. */
  answering(
    check: (request: FuzzRequest, answer: Answer) => void,
  ): (request: FuzzRequest) => Promise<void>;
}

/** A harness on one store and its fuzz context, started before the tests and closed after. */
export function fuzzSuite(dialect: Dialect): FuzzSuite {
  let h: Harness | undefined;
  let ctx: FuzzContext | undefined;
  before(async () => {
    h = await startHarness({ dialect });
    ctx = await fuzzContext(h);
  });
  after(() => h?.close());
  return {
    get h() {
      return h as Harness;
    },
    get ctx() {
      return ctx as FuzzContext;
    },
    answering: (check) => (request) => sendAndCheck((h as Harness).app, request, check),
  };
}
