import { after, before, describe, it } from 'node:test';
import { OPERATIONS } from '../../src/operations/registry.js';
import { assertError } from '../support/assertions.js';
import {
  callOperation,
  get,
  post,
  qs,
  startHarness,
  validInput,
  type Harness,
  DIALECTS,
} from '../support/harness.js';

const ok = { metrics: ['spend'] };

/** Bodies run_semantic_query must reject with 404 before it runs (SPEC "Errors", DESIGN §4.2). */
const BAD_QUERY_BODIES: [string, unknown][] = [
  ['an empty body', {}],
  ['a body that is not an object', []],
  ['an unknown top-level member', { query: ok, extra: 1 }],
  ['an unknown member in the query', { query: { ...ok, groupBy: ['supplier'] } }],
  [
    'an unknown member in a filter',
    {
      query: {
        ...ok,
        filters: [{ dimension: 'supplier', operator: 'eq', values: ['a'], not: true }],
      },
    },
  ],
  [
    'an unknown member in an order item',
    { query: { ...ok, order: [{ key: 'spend', direction: 'asc', nulls: 'first' }] } },
  ],
  [
    'an unknown member in timeRange',
    { query: { ...ok, timeRange: { from: '2025-01-01', to: '2025-02-01', tz: 'UTC' } } },
  ],
  ['no metrics', { query: {} }],
  ['an empty metrics list', { query: { metrics: [] } }],
  ['a repeated metric', { query: { metrics: ['spend', 'spend'] } }],
  ['metrics of the wrong type', { query: { metrics: 'spend' } }],
  ['a number where a metric key belongs', { query: { metrics: [1] } }],
  ['dimensions of the wrong type', { query: { ...ok, dimensions: 'supplier' } }],
  [
    'an unknown filter operator',
    { query: { ...ok, filters: [{ dimension: 'supplier', operator: 'like', values: ['a'] }] } },
  ],
  [
    'a filter value of the wrong type',
    { query: { ...ok, filters: [{ dimension: 'supplier', operator: 'eq', values: [true] }] } },
  ],
  [
    'a filter without values',
    { query: { ...ok, filters: [{ dimension: 'supplier', operator: 'eq' }] } },
  ],
  ['an unknown timeGrain', { query: { ...ok, timeGrain: 'hour' } }],
  [
    'an invalid calendar date',
    { query: { ...ok, timeRange: { from: '2025-02-30', to: '2025-03-01' } } },
  ],
  [
    'a date that is not ISO',
    { query: { ...ok, timeRange: { from: '01/02/2025', to: '2025-03-01' } } },
  ],
  [
    'timeRange.from after timeRange.to',
    { query: { ...ok, timeRange: { from: '2025-03-02', to: '2025-03-01' } } },
  ],
  [
    'an order direction outside its enumeration',
    { query: { ...ok, order: [{ key: 'spend', direction: 'up' }] } },
  ],
  ['limit 0', { query: { ...ok, limit: 0 } }],
  ['limit above 1,000', { query: { ...ok, limit: 1001 } }],
  ['a fractional limit', { query: { ...ok, limit: 2.5 } }],
  ['a limit as text', { query: { ...ok, limit: '10' } }],
  [
    'both period and query.timeRange',
    {
      query: { ...ok, timeRange: { from: '2025-01-01', to: '2025-01-31' } },
      period: { kind: 'relative', unit: 'month', offset: 0 },
    },
  ],
  ['a relative period without offset', { query: ok, period: { kind: 'relative', unit: 'month' } }],
  [
    'a relative period with a quarter member',
    { query: ok, period: { kind: 'relative', unit: 'month', offset: 0, quarter: 1 } },
  ],
  [
    'a relative period in days',
    { query: ok, period: { kind: 'relative', unit: 'day', offset: 0 } },
  ],
  [
    'a positive relative offset',
    { query: ok, period: { kind: 'relative', unit: 'month', offset: 1 } },
  ],
  ['an offset below -24', { query: ok, period: { kind: 'relative', unit: 'year', offset: -25 } }],
  ['quarter 5', { query: ok, period: { kind: 'quarter', quarter: 5 } }],
  ['quarter 0', { query: ok, period: { kind: 'quarter', quarter: 0 } }],
  [
    'a quarter year before 2000',
    { query: ok, period: { kind: 'quarter', quarter: 1, year: 1999 } },
  ],
  ['a quarter year after 2100', { query: ok, period: { kind: 'quarter', quarter: 1, year: 2101 } }],
  [
    'a quarter period with a unit',
    { query: ok, period: { kind: 'quarter', quarter: 1, unit: 'month' } },
  ],
  ['an unknown period kind', { query: ok, period: { kind: 'fiscal', quarter: 1 } }],
  ['an empty cursor', { query: ok, cursor: '' }],
  ['a cursor over 512 characters', { query: ok, cursor: 'a'.repeat(513) }],
];

const BAD_SAVED_RUN_BODIES: [string, unknown][] = [
  ['an empty body', {}],
  ['an empty id', { savedQueryId: '' }],
  ['an id over 64 characters', { savedQueryId: 'x'.repeat(65) }],
  ['an id of the wrong type', { savedQueryId: 7 }],
  ['an unknown member', { savedQueryId: 'sq', limit: 5 }],
  ['an empty cursor', { savedQueryId: 'sq', cursor: '' }],
];

for (const dialect of DIALECTS) {
  describe(`report strictness (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    describe('run_semantic_query answers 404 not_found for', () => {
      for (const [rule, body] of BAD_QUERY_BODIES) {
        it(rule, async () =>
          assertError(
            await post(h.app, '/api/v1/reports/query', h.tokens.staff, body),
            404,
            'not_found',
          ),
        );
      }
      it('unparsable JSON', async () =>
        assertError(
          await post(h.app, '/api/v1/reports/query', h.tokens.staff, '{"query":'),
          404,
          'not_found',
        ));
      it('a body that is not JSON', async () =>
        assertError(
          await post(h.app, '/api/v1/reports/query', h.tokens.staff, 'query=1', {
            'content-type': 'text/plain',
          }),
          404,
          'not_found',
        ));
      it('a query parameter on a POST', async () =>
        assertError(
          await post(h.app, '/api/v1/reports/query?limit=1', h.tokens.staff, { query: ok }),
          404,
          'not_found',
        ));
    });

    describe('run_saved_query answers 404 not_found for', () => {
      for (const [rule, body] of BAD_SAVED_RUN_BODIES) {
        it(rule, async () =>
          assertError(
            await post(h.app, '/api/v1/reports/saved-queries/run', h.tokens.staff, body),
            404,
            'not_found',
          ),
        );
      }
    });

    describe('list_saved_queries answers 404 not_found for', () => {
      for (const [rule, query] of [
        ['limit above 50 (not reduced)', qs({ limit: 51 })],
        ['limit 0', qs({ limit: 0 })],
        ['an unknown kind', qs({ kind: 'x' })],
        ['an order parameter', qs({ order: 'asc' })],
        ['a repeated kind', qs({ kind: ['library', 'briefing'] })],
        ['an unknown parameter', qs({ name: 'x' })],
        ['an empty cursor', qs({ cursor: '' })],
      ]) {
        it(rule, async () =>
          assertError(
            await get(h.app, `/api/v1/reports/saved-queries${query}`, h.tokens.staff),
            404,
            'not_found',
          ),
        );
      }
    });

    it('list_catalog answers 404 not_found for any query parameter', async () => {
      assertError(
        await get(h.app, '/api/v1/reports/catalog?x=1', h.tokens.staff),
        404,
        'not_found',
      );
    });

    describe('report operations are for staff roles only', () => {
      for (const op of OPERATIONS.filter((o) => o.staffOnly)) {
        for (const role of ['worker', 'billing'] as const) {
          it(`${op.name} answers 403 forbidden to a ${role} token that has the scope`, async () => {
            assertError(
              await callOperation(h.app, op, h.tokens[role], validInput(op)),
              403,
              'forbidden',
            );
          });
        }
      }
    });
  });
}
