import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setMetricEnabled } from '../../src/admin/catalog.js';
import { assertRefusal } from '../support/assertions.js';
import { get, post, startHarness, type Harness, DIALECTS } from '../support/harness.js';
import { createToken } from '../../src/auth/tokens.js';
import { ALL_SCOPES } from '../support/harness.js';
import { runSemanticQuery } from '../../src/operations/reports.js';
import { CatalogSchema } from '../../src/operations/report-schemas.js';
import { DEFAULT_METRICS } from '../../src/semantic/default-catalog.js';
import { CUSTOM_METRICS } from '../../src/seed/semantic-catalog.js';
import { exampleQueryOf } from '../support/example-query.js';

const QUERY = '/api/v1/reports/query';

for (const dialect of DIALECTS) {
  describe(`report operations (${dialect})`, () => {
    let h: Harness;
    let teamStaff: string;
    let enterpriseStaff: string;
    before(async () => {
      h = await startHarness({ dialect });
      teamStaff = h.tokens.otherWorkspaceStaff;
      enterpriseStaff = await createToken(
        h.store,
        { workspaceId: 'ws_enterprise', role: 'staff', scopes: ALL_SCOPES },
        new Date(),
      );
    });
    after(() => h.close());

    describe('list_catalog', () => {
      it('describes the default catalog with its source and a cv1- version', async () => {
        const data = (await get(h.app, '/api/v1/reports/catalog', h.tokens.staff)).body.data;
        assert.equal(data.source, 'default');
        assert.match(data.catalogVersion, /^cv1-[0-9a-f]+$/);
        const keys = data.metrics.map((m: { key: string }) => m.key);
        for (const key of [
          'hours_worked',
          'spend',
          'invoice_count',
          'timesheet_count',
          'worker_count',
          'expense_total',
        ])
          assert.ok(keys.includes(key), key);
        const scorecard = data.metrics.find(
          (m: { key: string }) => m.key === 'supplier_scorecard_score',
        );
        assert.equal(scorecard.evaluative, true);
        const spend = data.metrics.find((m: { key: string }) => m.key === 'spend');
        // SPEC's four members and, additive, description and unit (test/semantic/catalog.test.ts).
        assert.deepEqual(
          Object.keys(spend).sort(),
          Object.keys(CatalogSchema.properties.metrics.items.properties).sort(),
        );
        assert.equal(spend.unit, 'cents');
        assert.match(spend.description, /cents/);
        assert.ok(
          spend.dimensions.includes('supplier') && spend.dimensions.includes('invoice_period'),
        );
        const workDate = data.dimensions.find((d: { key: string }) => d.key === 'work_date');
        assert.deepEqual(workDate, {
          key: 'work_date',
          label: workDate.label,
          description: workDate.description,
          type: 'time',
        });
        assert.match(workDate.description, /timeGrain/);
        assert.ok(
          !data.dimensions.some((d: { key: string }) => d.key === 'worker'),
          'no worker-level dimension',
        );
      });
      it('reads the enabled subset from the program configuration (team)', async () => {
        const data = (await get(h.app, '/api/v1/reports/catalog', teamStaff)).body.data;
        assert.equal(data.source, 'program_config');
        assert.ok(!data.metrics.some((m: { key: string }) => m.key === 'credit_note_rate'));
      });
      it('reads definitions from the semantic catalog table (enterprise), custom metrics included, disabled ones not', async () => {
        const data = (await get(h.app, '/api/v1/reports/catalog', enterpriseStaff)).body.data;
        assert.equal(data.source, 'semantic_catalog_table');
        const keys = data.metrics.map((m: { key: string }) => m.key);
        assert.ok(keys.includes('holiday_hours'));
        assert.ok(!keys.includes('legacy_headcount'));
        const about = (key: string) =>
          data.metrics.find((m: { key: string }) => m.key === key) as {
            description: string;
            unit: string;
          };
        // A stored description, one written from the measure, and a default kept in the table.
        assert.equal(about('holiday_hours').description, CUSTOM_METRICS.holiday_hours.description);
        assert.equal(about('holiday_hours').unit, 'hours');
        assert.match(about('max_expense').description, /^A metric defined for this workspace/);
        assert.equal(about('max_expense').unit, 'cents');
        assert.equal(about('spend').description, DEFAULT_METRICS.spend.description);
      });
      it('gives the same catalogVersion for the same inputs', async () => {
        const a = (await get(h.app, '/api/v1/reports/catalog', h.tokens.staff)).body.data
          .catalogVersion;
        const b = (await get(h.app, '/api/v1/reports/catalog', h.tokens.staff2)).body.data
          .catalogVersion;
        assert.equal(a, b);
      });
    });

    describe('run_semantic_query', () => {
      it('runs the example query its description shows, with rows (status ok)', async () => {
        const example = exampleQueryOf(runSemanticQuery.description) as {
          query: { metrics: string[]; dimensions: string[] };
        };
        const answer = await post(h.app, QUERY, h.tokens.staff, example);
        assert.equal(answer.status, 200, answer.raw);
        assert.equal(answer.body.data.status, 'ok', answer.raw);
        assert.ok(answer.body.data.rows.length > 0);
        assert.deepEqual(answer.body.data.columns, [
          ...example.query.dimensions,
          ...example.query.metrics,
        ]);
      });
      it('answers rows, columns, metricDefinitions and the query as run with defaults filled', async () => {
        const data = (
          await post(h.app, QUERY, h.tokens.staff, {
            query: { metrics: ['spend', 'invoice_count'].slice(0, 1), dimensions: ['currency'] },
          })
        ).body.data;
        assert.equal(data.status, 'ok');
        assert.deepEqual(data.columns, ['currency', 'spend']);
        assert.deepEqual(data.metricDefinitions, [
          {
            key: 'spend',
            label: data.metricDefinitions[0].label,
            unit: 'cents',
            view: 'invoice_lines',
          },
        ]);
        assert.deepEqual(data.semanticQuery, {
          metrics: ['spend'],
          dimensions: ['currency'],
          filters: [],
          timeGrain: null,
          timeRange: null,
          order: [],
          limit: 100,
        });
        assert.deepEqual(
          data.rows.map((r: { currency: string }) => r.currency),
          ['EUR', 'GBP', 'USD'],
        );
        for (const row of data.rows) assert.ok(Number.isInteger(row.spend));
        assert.equal(data.truncated, false);
        assert.equal(data.truncatedBy, null);
        assert.equal(data.nextCursor, null);
      });
      it('resolves a period into semanticQuery.timeRange', async () => {
        const data = (
          await post(h.app, QUERY, h.tokens.staff, {
            query: { metrics: ['spend'] },
            period: { kind: 'quarter', quarter: 1, year: 2025 },
          })
        ).body.data;
        assert.deepEqual(data.semanticQuery.timeRange, { from: '2025-01-01', to: '2025-03-31' });
      });
      it('answers status empty with no rows when nothing matches', async () => {
        const data = (
          await post(h.app, QUERY, h.tokens.staff, {
            query: {
              metrics: ['spend'],
              filters: [{ dimension: 'supplier', operator: 'eq', values: ['no such supplier'] }],
            },
          })
        ).body.data;
        assert.equal(data.status, 'empty');
        assert.deepEqual(data.rows, []);
      });
      it('stops at the query limit with truncatedBy query_limit and no cursor', async () => {
        const data = (
          await post(h.app, QUERY, h.tokens.staff, {
            query: { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 5 },
          })
        ).body.data;
        assert.equal(data.rows.length, 5);
        assert.equal(data.truncated, true);
        assert.equal(data.truncatedBy, 'query_limit');
        assert.equal(data.nextCursor, null);
      });
      it('walks the row budget by cursor, each row once, up to query.limit rows in all', async () => {
        const query = { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 700 };
        const first = (await post(h.app, QUERY, h.tokens.staff, { query })).body.data;
        assert.equal(first.rows.length, 500, 'the business plan row budget');
        assert.equal(first.truncatedBy, 'row_budget');
        const second = (
          await post(h.app, QUERY, h.tokens.staff, { query, cursor: first.nextCursor })
        ).body.data;
        assert.equal(second.rows.length, 200);
        const days = [...first.rows, ...second.rows].map((r: { work_date: string }) => r.work_date);
        assert.equal(new Set(days).size, 700);
        const expected = (
          await h.all<{ work_date: string }>(
            `SELECT DISTINCT work_date FROM time_entries WHERE workspace_id = 'ws_business' ORDER BY work_date LIMIT 700`,
          )
        ).map((r) => r.work_date);
        assert.deepEqual(days, expected);
        assert.equal(second.truncatedBy, 'query_limit');
        assert.equal(second.nextCursor, null);
      });
      it('bounds rows by the team plan budget of 200', async () => {
        const data = (
          await post(h.app, QUERY, teamStaff, {
            query: { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 1000 },
          })
        ).body.data;
        assert.equal(data.rows.length, 200);
        assert.equal(data.truncatedBy, 'row_budget');
      });
      it('wraps supplier and org-unit values in envelopes whose path resolves to themselves', async () => {
        const data = (
          await post(h.app, QUERY, h.tokens.staff, {
            query: { metrics: ['hours_worked'], dimensions: ['supplier', 'org_unit', 'band'] },
          })
        ).body.data;
        data.rows.forEach(
          (row: Record<string, { source: { path: string } } | string | null>, i: number) => {
            for (const key of ['supplier', 'org_unit']) {
              const value = row[key] as {
                kind: string;
                source: { path: string; operationId: string };
              } | null;
              if (value !== null)
                assert.deepEqual(value.source, {
                  operationId: 'run_semantic_query',
                  path: `$.rows[${i}].${key}`,
                });
            }
            assert.ok(row.band === null || typeof row.band === 'string');
          },
        );
      });
    });

    describe('refusals', () => {
      const cases: [string, unknown, string][] = [
        ['unknown_metric', { query: { metrics: ['spnd'] } }, 'unknown_metric'],
        [
          'evaluative_not_available',
          { query: { metrics: ['coemployment_risk_score'] } },
          'evaluative_not_available',
        ],
        ['mixed_views', { query: { metrics: ['spend', 'hours_worked'] } }, 'mixed_views'],
        [
          'unknown_dimension',
          { query: { metrics: ['spend'], dimensions: ['planet'] } },
          'unknown_dimension',
        ],
        [
          'dimension_unsupported',
          { query: { metrics: ['spend'], dimensions: ['site'] } },
          'dimension_unsupported',
        ],
        [
          'bad_filter (another view)',
          {
            query: {
              metrics: ['spend'],
              filters: [{ dimension: 'site', operator: 'eq', values: ['x'] }],
            },
          },
          'bad_filter',
        ],
        [
          'bad_filter (value count)',
          {
            query: {
              metrics: ['spend'],
              filters: [{ dimension: 'currency', operator: 'between', values: ['EUR'] }],
            },
          },
          'bad_filter',
        ],
        [
          'bad_order',
          { query: { metrics: ['spend'], order: [{ key: 'currency', direction: 'asc' }] } },
          'bad_order',
        ],
        ['invalid_cursor', { query: { metrics: ['spend'] }, cursor: 'garbage' }, 'invalid_cursor'],
      ];
      for (const [name, body, code] of cases) {
        it(`refuses with ${name}`, async () =>
          assertRefusal(
            await post(h.app, QUERY, h.tokens.staff, body),
            code,
            'run_semantic_query',
            true,
          ));
      }
      it('says in bad_filter which filter does not fit and why, as its provenance message', async () => {
        const answer = await post(h.app, QUERY, h.tokens.staff, {
          query: {
            metrics: ['hours_worked'],
            filters: [{ dimension: 'work_date', operator: 'gte', values: ['abc'] }],
          },
        });
        assertRefusal(answer, 'bad_filter', 'run_semantic_query', true);
        assert.equal(
          answer.body.data.message.value,
          'Filter on work_date (query.filters[0]): values[0] is not a date (YYYY-MM-DD).',
        );
      });
      it('suggests the closest enabled metrics for an unknown key', async () => {
        const data = (await post(h.app, QUERY, h.tokens.staff, { query: { metrics: ['spnd'] } }))
          .body.data;
        assert.equal(data.closestMetrics[0], 'spend');
        assert.ok(data.closestMetrics.length <= 5);
      });
      it('never answers an empty closestMetrics for an unknown metric that resembles nothing', async () => {
        const data = (
          await post(h.app, QUERY, h.tokens.staff, { query: { metrics: ['zzzzzzzzzzzzzzzzzzzz'] } })
        ).body.data;
        assert.equal(data.code, 'unknown_metric');
        assert.equal(data.closestMetrics.length, 5);
      });
      it('refuses a metric the workspace has not enabled with metric_unavailable', async () => {
        const answer = await post(h.app, QUERY, teamStaff, {
          query: { metrics: ['credit_note_rate'] },
        });
        assertRefusal(answer, 'metric_unavailable', 'run_semantic_query', true);
      });
      it('refuses a cursor of another token, another query and a tampered one with invalid_cursor', async () => {
        const query = { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 600 };
        const cursor = (await post(h.app, QUERY, h.tokens.staff, { query })).body.data.nextCursor;
        assert.equal(typeof cursor, 'string');
        assertRefusal(
          await post(h.app, QUERY, h.tokens.staff2, { query, cursor }),
          'invalid_cursor',
          'run_semantic_query',
          true,
        );
        assertRefusal(
          await post(h.app, QUERY, h.tokens.staff, { query: { ...query, limit: 601 }, cursor }),
          'invalid_cursor',
          'run_semantic_query',
          true,
        );
        const tampered = cursor.slice(0, -3) + (cursor.endsWith('AAA') ? 'BBB' : 'AAA');
        assertRefusal(
          await post(h.app, QUERY, h.tokens.staff, { query, cursor: tampered }),
          'invalid_cursor',
          'run_semantic_query',
          true,
        );
      });
    });

    describe('catalog changes', () => {
      it('take effect on the next request, change catalogVersion, and make earlier report cursors stale', async () => {
        const query = { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 600 };
        const first = (await post(h.app, QUERY, h.tokens.staff, { query })).body.data;
        const before = (await get(h.app, '/api/v1/reports/catalog', h.tokens.staff)).body.data;
        await setMetricEnabled(h.store, 'ws_business', 'expense_count', false, new Date());
        const after = (await get(h.app, '/api/v1/reports/catalog', h.tokens.staff)).body.data;
        assert.notEqual(after.catalogVersion, before.catalogVersion);
        assert.equal(after.source, 'program_config');
        assert.ok(!after.metrics.some((m: { key: string }) => m.key === 'expense_count'));
        assertRefusal(
          await post(h.app, QUERY, h.tokens.staff, { query, cursor: first.nextCursor }),
          'stale_cursor',
          'run_semantic_query',
          true,
        );
        assertRefusal(
          await post(h.app, QUERY, h.tokens.staff, { query: { metrics: ['expense_count'] } }),
          'metric_unavailable',
          'run_semantic_query',
          true,
        );
        await setMetricEnabled(h.store, 'ws_business', 'expense_count', true, new Date());
        const again = (await get(h.app, '/api/v1/reports/catalog', h.tokens.staff)).body.data;
        assert.notEqual(
          again.catalogVersion,
          after.catalogVersion,
          'the configuration version is part of catalogVersion',
        );
        assert.equal(
          (await post(h.app, QUERY, h.tokens.staff, { query: { metrics: ['expense_count'] } })).body
            .data.status,
          'ok',
        );
      });
    });
  });
}
