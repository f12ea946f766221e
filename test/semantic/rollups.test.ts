/**
 * Rollups (src/semantic/rollups.ts, rollup-choice.ts): which exist, which a query reads, how a
 * range splits at month boundaries, and the property that matters: any query answers the same
 * from a rollup as from the facts (a service with rollups against one with VMS_READ_ROLLUPS=off,
 * each over its own copy of the same tiny seed).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { resolveCatalog } from '../../src/semantic/catalog.js';
import { DEFAULT_METRICS } from '../../src/semantic/default-catalog.js';
import { chooseRollup, splitByMonth } from '../../src/semantic/rollup-choice.js';
import { ROLLUPS, type HeldRollup } from '../../src/semantic/rollups.js';
import type { Query } from '../../src/semantic/query-schema.js';
import { normalizeQuery, validateQuery } from '../../src/semantic/validate.js';
import {
  goldenClock,
  QUERY_PATH,
  runAll,
  type ApiFilter,
  type ApiQuery,
} from '../support/golden-api.js';
import { get, post, startHarness, type Harness } from '../support/harness.js';

const CATALOG = resolveCatalog({
  workspaceSource: 'default',
  configVersion: 1,
  enabledMetrics: null,
  tableEntries: [],
});
/** Every rollup, each as large as its place in the list (the first is the smallest). */
const HELD: HeldRollup[] = ROLLUPS.map((rollup, i) => ({ rollup, rows: i + 1 }));

const planOf = (query: Query) => {
  const validation = validateQuery(normalizeQuery({ query }, new Date()), CATALOG);
  assert.ok(validation.ok, JSON.stringify(validation));
  return validation.plan;
};
const chosen = (query: Query) => chooseRollup(planOf(query), HELD)?.rollup.name ?? null;

describe('rollups: which exist', () => {
  it('are those of the views whose default metrics add up, keyed on their conditions and currency', () => {
    const byView = new Map<string, string[]>();
    for (const r of ROLLUPS) byView.set(r.view, [...(byView.get(r.view) ?? []), r.name]);
    assert.deepEqual([...byView.keys()], ['time_entries', 'invoice_lines']);
    const [entries, lines] = [ROLLUPS[0], ROLLUPS.find((r) => r.view === 'invoice_lines')!];
    assert.deepEqual(entries.keys, ['entry_mode', 'kind', 'on_behalf', 'pay_code']);
    assert.deepEqual(entries.sums, ['minutes', 'units']);
    assert.deepEqual(lines.keys, ['band', 'currency', 'invoice_status', 'source_type', 'unit']);
    assert.deepEqual(lines.sums, ['amount_cents', 'quantity']);
    // One more per dimension the keys do not hold already.
    assert.deepEqual(byView.get('time_entries'), [
      'rollup_time_entries_by_month',
      'rollup_time_entries_by_supplier',
      'rollup_time_entries_by_org_unit',
      'rollup_time_entries_by_site',
      'rollup_time_entries_by_job_code',
      'rollup_time_entries_by_worker_type',
    ]);
    assert.deepEqual(byView.get('invoice_lines'), [
      'rollup_invoice_lines_by_month',
      'rollup_invoice_lines_by_supplier',
      'rollup_invoice_lines_by_org_unit',
      'rollup_invoice_lines_by_pay_code',
      'rollup_invoice_lines_by_invoice_type',
    ]);
  });
});

describe('rollups: a range split at month boundaries', () => {
  it('keeps whole months for the rollup and the days at the edges for the facts', () => {
    assert.deepEqual(splitByMonth({ from: '2025-01-01', to: '2025-12-31' }), {
      months: { from: '2025-01-01', to: '2025-12-01' },
      edges: [],
    });
    assert.deepEqual(splitByMonth({ from: '2025-01-15', to: '2025-03-10' }), {
      months: { from: '2025-02-01', to: '2025-02-01' },
      edges: [
        { from: '2025-01-15', to: '2025-01-31' },
        { from: '2025-03-01', to: '2025-03-10' },
      ],
    });
    // Across a year's end, and February's last day of a leap year.
    assert.deepEqual(splitByMonth({ from: '2023-12-02', to: '2024-02-29' }), {
      months: { from: '2024-01-01', to: '2024-02-01' },
      edges: [{ from: '2023-12-02', to: '2023-12-31' }],
    });
    assert.deepEqual(splitByMonth({ from: '2024-02-01', to: '2024-02-28' }), null);
    // Years before 100 are years, not 1900 and after.
    assert.deepEqual(splitByMonth({ from: '0099-01-01', to: '0099-12-31' }), {
      months: { from: '0099-01-01', to: '0099-12-01' },
      edges: [],
    });
  });

  it('is null for a range without a whole month, or backwards', () => {
    assert.equal(splitByMonth({ from: '2025-01-15', to: '2025-02-10' }), null);
    assert.equal(splitByMonth({ from: '2025-01-02', to: '2025-01-31' }), null);
    assert.equal(splitByMonth({ from: '2025-03-01', to: '2025-01-31' }), null);
  });

  it('covers every day of any range exactly once', () => {
    const first = Date.UTC(2023, 0, 1);
    const day = (n: number) => new Date(first + n * 86_400_000).toISOString().slice(0, 10);
    const next = (d: string) => new Date(Date.parse(d) + 86_400_000).toISOString().slice(0, 10);
    const days = (from: string, to: string) => {
      const out: string[] = [];
      for (let d = from; d <= to; d = next(d)) out.push(d);
      return out;
    };
    fc.assert(
      fc.property(fc.nat(1200), fc.nat(400), (start, length) => {
        const range = { from: day(start), to: day(start + length) };
        const split = splitByMonth(range);
        if (split === null) return;
        const lastMonth = split.months.to.slice(0, 7);
        const covered = [
          ...split.edges.flatMap((edge) => days(edge.from, edge.to)),
          ...days(split.months.from, range.to).filter((d) => d.slice(0, 7) <= lastMonth),
        ].sort();
        assert.deepEqual(covered, days(range.from, range.to));
      }),
    );
  });
});

describe('rollups: which a query reads', () => {
  it('the smallest that holds every column the query reads', () => {
    assert.equal(chosen({ metrics: ['hours_worked'] }), 'rollup_time_entries_by_month');
    assert.equal(
      chosen({ metrics: ['overtime_hours_share', 'days_worked'], dimensions: ['band'] }),
      'rollup_time_entries_by_month',
    );
    assert.equal(
      chosen({
        metrics: ['spend'],
        dimensions: ['supplier', 'currency', 'invoice_period'],
        timeGrain: 'month',
      }),
      'rollup_invoice_lines_by_supplier',
    );
    assert.equal(
      chosen({
        metrics: ['hours_worked'],
        dimensions: ['org_unit'],
        filters: [{ dimension: 'org_unit', operator: 'neq', values: ['OU-1'] }],
        timeRange: { from: '2025-01-10', to: '2025-04-20' },
      }),
      'rollup_time_entries_by_org_unit',
    );
    const read = chooseRollup(
      planOf({ metrics: ['spend'], timeRange: { from: '2025-01-10', to: '2025-04-20' } }),
      HELD,
    );
    assert.deepEqual(read?.months, { from: '2025-02-01', to: '2025-03-01' });
    assert.equal(read?.edges.length, 2);
  });

  it('none for what a month of facts cannot answer', () => {
    // Two dimensions beyond the keys; days and weeks; a filter on the date; no whole month.
    assert.equal(chosen({ metrics: ['hours_worked'], dimensions: ['supplier', 'site'] }), null);
    assert.equal(
      chosen({ metrics: ['hours_worked'], dimensions: ['work_date'], timeGrain: 'week' }),
      null,
    );
    assert.equal(chosen({ metrics: ['hours_worked'], dimensions: ['work_date'] }), null);
    assert.equal(
      chosen({
        metrics: ['hours_worked'],
        filters: [{ dimension: 'work_date', operator: 'gte', values: ['2025-01-01'] }],
      }),
      null,
    );
    assert.equal(
      chosen({ metrics: ['spend'], timeRange: { from: '2025-01-02', to: '2025-01-31' } }),
      null,
    );
    // Views without rollups, and metrics that do not add up (an average).
    assert.equal(chosen({ metrics: ['invoice_count'] }), null);
    assert.equal(chosen({ metrics: ['invoice_cycle_days'] }), null);
    // The engine holds none (rollups off).
    assert.equal(chooseRollup(planOf({ metrics: ['hours_worked'] }), []), null);
  });
});

const ROLLED_VIEWS = ['time_entries', 'invoice_lines'];
const GRAINS = ['day', 'week', 'month', 'quarter', 'year'] as const;

describe('rollups: any query answers the same from a rollup as from the facts', () => {
  let on: Harness;
  let off: Harness;
  /** The SQL the service with rollups ran, to see that rollups answered. */
  const ran: string[] = [];
  const catalog = new Map<string, { view: string; dimensions: string[] }>();
  const timeOf = new Map<string, string>();
  /** Values seen per dimension, for filters. */
  const values = new Map<string, string[]>();

  before(async () => {
    [on, off] = await Promise.all([
      startHarness({ now: goldenClock }),
      startHarness({ now: goldenClock, rollups: false }),
    ]);
    const engineOf = on.facts.reportEngine.bind(on.facts);
    on.facts.reportEngine = async () => {
      const engine = await engineOf();
      return {
        ...engine,
        run: (sql: string, params: unknown[], ms: number) => {
          ran.push(sql);
          return engine.run(sql, params, ms);
        },
      };
    };
    const data = (await get(on.app, '/api/v1/reports/catalog', on.tokens.staff)).body.data;
    for (const m of data.metrics as { key: string; dimensions: string[]; evaluative: boolean }[]) {
      const view = DEFAULT_METRICS[m.key]?.view;
      if (!m.evaluative && ROLLED_VIEWS.includes(view)) catalog.set(m.key, { ...m, view });
    }
    for (const d of data.dimensions as { key: string; type: string }[])
      if (d.type === 'time') timeOf.set(d.key, d.key);
    for (const metric of ['time_entry_count', 'spend']) {
      for (const dimension of catalog.get(metric)!.dimensions) {
        if (timeOf.has(dimension)) continue;
        const { rows } = await runAll(on.app, on.tokens.staff, {
          metrics: [metric],
          dimensions: [dimension],
          limit: 1000,
        });
        const seen = rows.map((r) => {
          const v = r[dimension] as { value: string } | string | null;
          return v !== null && typeof v === 'object' ? v.value : v;
        });
        values.set(dimension, [...new Set(seen.filter((v): v is string => v !== null)), 'ZZZ']);
      }
    }
  });
  after(() => Promise.all([on.close(), off.close()]));

  const day = (n: number) =>
    new Date(Date.UTC(2023, 5, 1) + n * 86_400_000).toISOString().slice(0, 10);
  const monthEdge = (n: number, end: boolean) => {
    const d = new Date(Date.UTC(2023, 6 + n + (end ? 1 : 0), end ? 0 : 1));
    return d.toISOString().slice(0, 10);
  };

  const queryArb = fc
    .record({
      view: fc.constantFrom(...ROLLED_VIEWS),
      metricPicks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      dimensionPicks: fc.array(fc.nat(), { maxLength: 2 }),
      withTime: fc.boolean(),
      grain: fc.constantFrom(...GRAINS, null),
      range: fc.oneof(
        fc.constant(null),
        fc
          .tuple(fc.nat(36), fc.nat(12))
          .map(([a, n]) => ({ from: monthEdge(a, false), to: monthEdge(a + n, true) })),
        fc.tuple(fc.nat(1150), fc.nat(500)).map(([a, n]) => ({ from: day(a), to: day(a + n) })),
      ),
      filter: fc.option(
        fc.record({
          pick: fc.nat(),
          operator: fc.constantFrom('eq', 'neq', 'in'),
          valuePicks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        }),
      ),
      orderByMetric: fc.boolean(),
    })
    .map((r): ApiQuery => {
      const metrics = [...catalog.entries()].filter(([, m]) => m.view === r.view).map(([k]) => k);
      const chosenMetrics = [...new Set(r.metricPicks.map((p) => metrics[p % metrics.length]))];
      const dims = catalog.get(chosenMetrics[0])!.dimensions;
      const time = dims.find((d) => timeOf.has(d))!;
      const categorical = dims.filter((d) => !timeOf.has(d));
      const dimensions = [
        ...new Set(r.dimensionPicks.map((p) => categorical[p % categorical.length])),
      ];
      if (r.withTime) dimensions.push(time);
      const filters: ApiFilter[] = [];
      if (r.filter) {
        const dimension = categorical[r.filter.pick % categorical.length];
        const seen = values.get(dimension) ?? ['ZZZ'];
        const picked = r.filter.valuePicks.map((p) => seen[p % seen.length]);
        filters.push({
          dimension,
          operator: r.filter.operator,
          values: r.filter.operator === 'in' ? [...new Set(picked)] : [picked[0]],
        });
      }
      return {
        metrics: chosenMetrics,
        dimensions,
        filters,
        timeGrain: r.withTime ? r.grain : null,
        timeRange: r.range,
        order: r.orderByMetric ? [{ key: chosenMetrics[0], direction: 'desc' }] : [],
        limit: 1000,
      };
    });

  it('for random metrics, dimensions, grains, filters and ranges (aligned or not): equal answers', async () => {
    let rolled = 0;
    let asked = 0;
    await fc.assert(
      fc.asyncProperty(queryArb, async (query) => {
        ran.length = 0;
        // The first page whole (rows, truncation, cursor-free parts): cursors are bound to tokens.
        const [withRollups, withoutRollups] = await Promise.all([
          post(on.app, QUERY_PATH, on.tokens.staff, { query }),
          post(off.app, QUERY_PATH, off.tokens.staff, { query }),
        ]);
        assert.equal(withRollups.status, 200, withRollups.raw);
        const { nextCursor: a, ...answer } = withRollups.body.data;
        const { nextCursor: b, ...expected } = withoutRollups.body.data;
        assert.deepEqual(answer, expected, JSON.stringify(query));
        assert.equal(a === null, b === null);
        asked++;
        if (ran.some((sql) => sql.includes('FROM rollup_'))) rolled++;
      }),
      { numRuns: 80 },
    );
    // The property is about rollups: most of these queries must have read one.
    assert.ok(rolled >= asked / 3, `${rolled} of ${asked} queries read a rollup`);
  });
});
