/**
 * Properties of the report layer that hold for any choice of metric, dimension, date or value:
 * additive metrics (sums and counts) split exactly across groups, across a timeRange cut in two
 * and across eq filters over a dimension's values. The API is checked against itself here; the
 * golden tests check it against an independent computation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import {
  agrees,
  dimValue,
  metricNumber,
  runAll,
  goldenClock,
  type ApiQuery,
} from '../support/golden-api.js';
import type { Comparison, Grain } from '../support/golden-reference.js';
import { DIALECTS, get, startHarness, type Harness } from '../support/harness.js';

/** Sums and counts of the default catalog, with how their values compare. */
const ADDITIVE: Record<string, Comparison> = {
  hours_worked: 'relative',
  overtime_hours: 'relative',
  days_worked: 'exact',
  time_entry_count: 'exact',
  spend: 'exact',
  labor_spend: 'exact',
  expense_spend: 'exact',
  overtime_spend: 'exact',
  invoice_count: 'exact',
  invoiced_total: 'exact',
  credit_note_total: 'exact',
  timesheet_count: 'exact',
  worker_count: 'exact',
  active_worker_count: 'exact',
  expense_total: 'exact',
  expense_count: 'exact',
};
const ADDITIVE_KEYS = Object.keys(ADDITIVE);
/** People-typed dimensions: their values arrive as provenance envelopes. */
const TEXT_DIMENSIONS = new Set([
  'supplier',
  'org_unit',
  'site',
  'job_code',
  'pay_code',
  'expense_category',
]);
const GRAINS: Grain[] = ['day', 'week', 'month', 'quarter', 'year'];
const RUNS = { numRuns: 15 };

/** The seed spans the 36 months to 2026-06-30; dates are drawn a little beyond both ends. */
const FIRST_DAY = Date.UTC(2023, 0, 1);
const LAST_DAY = Date.UTC(2026, 11, 31);
const DAYS = Math.round((LAST_DAY - FIRST_DAY) / 86_400_000);
const isoDay = (offset: number) =>
  new Date(FIRST_DAY + offset * 86_400_000).toISOString().slice(0, 10);

for (const dialect of DIALECTS)
  describe(`properties of report queries on the tiny seed (${dialect})`, () => {
    let h: Harness;
    let app: FastifyInstance;
    let token: string;
    /** Metric key → its dimensions, from list_catalog. */
    const dimensionsOf = new Map<string, string[]>();
    let timeDimensions: Set<string>;
    let allMetrics: string[];

    before(async () => {
      h = await startHarness({ dialect, now: goldenClock });
      app = h.app;
      token = h.tokens.staff;
      const catalog = (await get(app, '/api/v1/reports/catalog', token)).body.data;
      for (const m of catalog.metrics as {
        key: string;
        dimensions: string[];
        evaluative: boolean;
      }[])
        if (!m.evaluative) dimensionsOf.set(m.key, m.dimensions);
      timeDimensions = new Set(
        (catalog.dimensions as { key: string; type: string }[])
          .filter((d) => d.type === 'time')
          .map((d) => d.key),
      );
      allMetrics = [...dimensionsOf.keys()].sort();
      for (const key of ADDITIVE_KEYS) assert.ok(dimensionsOf.has(key), `${key} is served`);
    });
    after(() => h.close());

    const total = async (query: ApiQuery): Promise<number | null> => {
      const { rows } = await runAll(app, token, { ...query, dimensions: [] });
      assert.ok(rows.length <= 1);
      return rows.length === 0 ? null : metricNumber(rows[0][query.metrics[0]]);
    };
    const sumOf = (values: (number | null)[]) => values.reduce<number>((a, v) => a + (v ?? 0), 0);
    const categorical = (metric: string) =>
      (dimensionsOf.get(metric) as string[]).filter((d) => !timeDimensions.has(d));

    it('grouped rows of an additive metric sum to its ungrouped total, for any dimension and grain', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ADDITIVE_KEYS),
          fc.nat(),
          fc.constantFrom(...GRAINS),
          async (metric, pick, timeGrain) => {
            const dims = dimensionsOf.get(metric) as string[];
            const dimension = dims[pick % dims.length];
            const grouped = await runAll(app, token, {
              metrics: [metric],
              dimensions: [dimension],
              timeGrain,
              limit: 1000,
            });
            const parts = grouped.rows.map((r) => metricNumber(r[metric]));
            const whole = (await total({ metrics: [metric] })) ?? 0;
            assert.ok(
              agrees(sumOf(parts), whole, ADDITIVE[metric]),
              `${metric} by ${dimension}/${timeGrain}: groups sum to ${sumOf(parts)}, total ${whole}`,
            );
          },
        ),
        RUNS,
      );
    });

    it('a timeRange cut in two at any date sums to the whole range, for every additive metric', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ADDITIVE_KEYS),
          fc.integer({ min: 0, max: DAYS }),
          fc.integer({ min: 0, max: DAYS }),
          fc.integer({ min: 0, max: DAYS }),
          async (metric, a, b, c) => {
            const [from, cut, to] = [a, b, c].sort((x, y) => x - y);
            const whole = await total({
              metrics: [metric],
              timeRange: { from: isoDay(from), to: isoDay(to) },
            });
            const left = await total({
              metrics: [metric],
              timeRange: { from: isoDay(from), to: isoDay(cut) },
            });
            const right =
              cut < to
                ? await total({
                    metrics: [metric],
                    timeRange: { from: isoDay(cut + 1), to: isoDay(to) },
                  })
                : null;
            const range = `${isoDay(from)}..${isoDay(cut)}..${isoDay(to)}`;
            assert.ok(
              agrees((left ?? 0) + (right ?? 0), whole ?? 0, ADDITIVE[metric]),
              `${metric} ${range}: ${left} + ${right} vs ${whole}`,
            );
            // A range with no facts answers empty: then both halves are empty too.
            if (whole === null) assert.equal(left === null && right === null, true, range);
          },
        ),
        RUNS,
      );
    });

    it('a timeRange equals a between filter on the time dimension, for any metric', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ADDITIVE_KEYS),
          fc.integer({ min: 0, max: DAYS }),
          fc.integer({ min: 0, max: DAYS }),
          fc.nat(),
          async (additive, a, b, pick) => {
            const metric = pick % 2 === 0 ? additive : allMetrics[pick % allMetrics.length];
            const [from, to] = [isoDay(Math.min(a, b)), isoDay(Math.max(a, b))];
            const time = (dimensionsOf.get(metric) as string[]).find((d) => timeDimensions.has(d));
            assert.ok(time, `${metric} has a time dimension`);
            const ranged = await total({ metrics: [metric], timeRange: { from, to } });
            const filtered = await total({
              metrics: [metric],
              filters: [{ dimension: time, operator: 'between', values: [from, to] }],
            });
            const split = await total({
              metrics: [metric],
              filters: [
                { dimension: time, operator: 'gte', values: [from] },
                { dimension: time, operator: 'lte', values: [to] },
              ],
            });
            assert.equal(filtered, ranged, `${metric} ${from}..${to}: between`);
            assert.equal(split, ranged, `${metric} ${from}..${to}: gte and lte`);
          },
        ),
        RUNS,
      );
    });

    it('eq filters over each value of a dimension sum to the total (nulls in their own group)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ADDITIVE_KEYS), fc.nat(), async (metric, pick) => {
          const dims = categorical(metric);
          const dimension = dims[pick % dims.length];
          const grouped = await runAll(app, token, {
            metrics: [metric],
            dimensions: [dimension],
            limit: 1000,
          });
          const text = TEXT_DIMENSIONS.has(dimension);
          let nullGroup = 0;
          const parts: number[] = [];
          for (const row of grouped.rows) {
            const value = dimValue(row, dimension, text);
            const groupValue = metricNumber(row[metric]) ?? 0;
            if (value === null) {
              nullGroup = groupValue;
              continue;
            }
            const one =
              (await total({
                metrics: [metric],
                filters: [{ dimension, operator: 'eq', values: [value] }],
              })) ?? 0;
            assert.ok(
              agrees(one, groupValue, ADDITIVE[metric]),
              `${metric} where ${dimension} = ${JSON.stringify(value)}: ${one} vs its group ${groupValue}`,
            );
            parts.push(one);
          }
          const whole = (await total({ metrics: [metric] })) ?? 0;
          assert.ok(
            agrees(sumOf(parts) + nullGroup, whole, ADDITIVE[metric]),
            `${metric} over ${dimension}: ${sumOf(parts)} + null group ${nullGroup} vs ${whole}`,
          );
        }),
        RUNS,
      );
    });

    it('eq and neq on the same value partition the total; in over every value leaves only nulls out', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ADDITIVE_KEYS),
          fc.nat(),
          fc.nat(),
          async (metric, pickDim, pickValue) => {
            const dims = categorical(metric);
            const dimension = dims[pickDim % dims.length];
            const grouped = await runAll(app, token, {
              metrics: [metric],
              dimensions: [dimension],
              limit: 1000,
            });
            const text = TEXT_DIMENSIONS.has(dimension);
            const values = grouped.rows
              .map((r) => dimValue(r, dimension, text))
              .filter((v): v is string => v !== null);
            const nullRow = grouped.rows.find((r) => r[dimension] === null);
            const nullGroup = nullRow ? (metricNumber(nullRow[metric]) ?? 0) : 0;
            const whole = (await total({ metrics: [metric] })) ?? 0;
            if (values.length === 0) return;
            const value = values[pickValue % values.length];
            const eq =
              (await total({
                metrics: [metric],
                filters: [{ dimension, operator: 'eq', values: [value] }],
              })) ?? 0;
            const neq =
              (await total({
                metrics: [metric],
                filters: [{ dimension, operator: 'neq', values: [value] }],
              })) ?? 0;
            assert.ok(
              agrees(eq + neq, whole, ADDITIVE[metric]),
              `${metric}: ${dimension} = / <> ${JSON.stringify(value)}: ${eq} + ${neq} vs ${whole}`,
            );
            const within =
              (await total({
                metrics: [metric],
                filters: [{ dimension, operator: 'in', values }],
              })) ?? 0;
            assert.ok(
              agrees(within + nullGroup, whole, ADDITIVE[metric]),
              `${metric}: ${dimension} in every value: ${within} + null group ${nullGroup} vs ${whole}`,
            );
          },
        ),
        RUNS,
      );
    });

    it('any metric filtered to one value of a dimension equals that value’s grouped row', async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.nat(), fc.nat(), async (pickMetric, pickDim, pickValue) => {
          const metric = allMetrics[pickMetric % allMetrics.length];
          const dims = categorical(metric);
          const dimension = dims[pickDim % dims.length];
          const grouped = await runAll(app, token, {
            metrics: [metric],
            dimensions: [dimension],
            limit: 1000,
          });
          const text = TEXT_DIMENSIONS.has(dimension);
          const rows = grouped.rows.filter((r) => r[dimension] !== null);
          if (rows.length === 0) return;
          const row = rows[pickValue % rows.length];
          const value = dimValue(row, dimension, text) as string;
          const one = await total({
            metrics: [metric],
            filters: [{ dimension, operator: 'eq', values: [value] }],
          });
          const want = metricNumber(row[metric]);
          const how: Comparison = ADDITIVE[metric] ?? 'relative';
          assert.ok(
            agrees(one, want, how),
            `${metric} where ${dimension} = ${JSON.stringify(value)}: ${one} vs ${want}`,
          );
        }),
        RUNS,
      );
    });
  });
