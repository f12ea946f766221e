/**
 * Golden tests of the report layer: every non-evaluative default metric, on the tiny seed, against
 * an independent computation (test/support/golden-reference.ts reduces raw rows in JavaScript;
 * the explicit checks below use hand-written SQL). Ratios and timestamp averages compare with a
 * small tolerance, cents and counts exactly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  actualGroups,
  agrees,
  assertGroupsMatch,
  compareCodePoints,
  dimValue,
  GOLDEN_TODAY,
  metricNumber,
  runAll,
  goldenClock,
  type ApiQuery,
} from '../support/golden-api.js';
import {
  buildReference,
  ENTERPRISE_EXTRA_METRICS,
  EVALUATIVE_METRICS,
  expectedGroups,
  metricsOfView,
  type Grain,
  type Reference,
  type ReferenceQuery,
} from '../support/golden-reference.js';
import { createToken } from '../../src/auth/tokens.js';
import {
  ALL_SCOPES,
  GOLDEN_SETUPS,
  get,
  startHarness,
  WS,
  type Harness,
} from '../support/harness.js';

/** The default catalog's non-evaluative metrics by view, with the unit each must declare. */
const METRICS: Record<string, [view: string, unit: string]> = {
  hours_worked: ['time_entries', 'hours'],
  overtime_hours: ['time_entries', 'hours'],
  overtime_hours_share: ['time_entries', 'ratio'],
  days_worked: ['time_entries', 'days'],
  on_behalf_share: ['time_entries', 'ratio'],
  time_entry_count: ['time_entries', 'count'],
  spend: ['invoice_lines', 'cents'],
  labor_spend: ['invoice_lines', 'cents'],
  expense_spend: ['invoice_lines', 'cents'],
  overtime_spend: ['invoice_lines', 'cents'],
  avg_regular_rate: ['invoice_lines', 'cents'],
  invoice_count: ['invoices', 'count'],
  invoiced_total: ['invoices', 'cents'],
  credit_note_total: ['invoices', 'cents'],
  credit_note_rate: ['invoices', 'ratio'],
  invoice_cycle_days: ['invoices', 'days'],
  timesheet_count: ['timesheets', 'count'],
  timesheet_approval_days: ['timesheets', 'days'],
  timesheet_rejection_rate: ['timesheets', 'ratio'],
  worker_count: ['workers', 'count'],
  active_worker_count: ['workers', 'count'],
  avg_tenure_days: ['workers', 'days'],
  expense_total: ['expenses', 'cents'],
  expense_count: ['expenses', 'count'],
};

/** Per view: its time dimension, and a pair of dimensions to group by together. */
const VIEWS: Record<string, { time: string; pair: [string, string] }> = {
  time_entries: { time: 'work_date', pair: ['supplier', 'band'] },
  invoice_lines: { time: 'invoice_period', pair: ['supplier', 'currency'] },
  invoices: { time: 'issued_date', pair: ['supplier', 'currency'] },
  timesheets: { time: 'period_start', pair: ['supplier', 'timesheet_status'] },
  workers: { time: 'tenure_start', pair: ['supplier', 'worker_status'] },
  expenses: { time: 'incurred_on', pair: ['supplier', 'currency'] },
};

const GRAINS: Grain[] = ['day', 'week', 'month', 'quarter', 'year'];

/** Days from one ISO date (or timestamp) to another, as julianday differences are. */
const daysBetween = (from: string, to: string) => {
  const at = (d: string) => Date.parse(d.length === 10 ? `${d}T00:00:00Z` : d);
  return (at(to) - at(from)) / 86_400_000;
};

for (const { dialect, rollups, label } of GOLDEN_SETUPS)
  describe(`golden: default metrics equal an independent computation on the tiny seed (${label})`, () => {
    let h: Harness;
    let app: FastifyInstance;
    let ref: Reference;
    let token: string;
    before(async () => {
      h = await startHarness({ dialect, rollups, now: goldenClock });
      app = h.app;
      ref = await buildReference(h.all, WS, GOLDEN_TODAY);
      token = h.tokens.staff;
    });
    after(() => h.close());

    /** Runs `metrics` (all on one view) with the query's shape and compares each with the reference. */
    function compare(metrics: string[], query: ReferenceQuery = {}) {
      return compareIn({ ref, token }, metrics, query);
    }

    async function compareIn(
      { ref, token }: { ref: Reference; token: string },
      metrics: string[],
      query: ReferenceQuery = {},
    ) {
      const view = ref.views.get(ref.metrics.get(metrics[0])!.view)!;
      const dimensions = query.dimensions ?? [];
      const apiQuery: ApiQuery = {
        metrics,
        dimensions,
        timeGrain: query.timeGrain ?? null,
        timeRange: query.timeRange ?? null,
        filters: query.filters ?? [],
        limit: 1000,
      };
      const result = await runAll(app, token, apiQuery);
      assert.deepEqual(result.first.columns, [...dimensions, ...metrics]);
      const label = JSON.stringify({ ...apiQuery, limit: undefined });
      for (const key of metrics) {
        const expected = expectedGroups(ref, key, query);
        const actual = actualGroups(result.rows, dimensions, view.textDimensions, key);
        assertGroupsMatch(actual, expected, ref.metrics.get(key)!.comparison, `${key} ${label}`);
      }
      return result;
    }

    it('the catalog serves exactly the non-evaluative metrics checked here, plus the evaluative three', async () => {
      const data = (await get(app, '/api/v1/reports/catalog', token)).body.data;
      const served = data.metrics
        .filter((m: { evaluative: boolean }) => !m.evaluative)
        .map((m: { key: string }) => m.key)
        .sort();
      assert.deepEqual(served, Object.keys(METRICS).sort());
      assert.deepEqual([...ref.metrics.keys()].sort(), Object.keys(METRICS).sort());
      const evaluative = data.metrics
        .filter((m: { evaluative: boolean }) => m.evaluative)
        .map((m: { key: string }) => m.key)
        .sort();
      assert.deepEqual(evaluative, [...EVALUATIVE_METRICS].sort());
    });

    describe('each metric alone', () => {
      for (const [key, [view, unit]] of Object.entries(METRICS)) {
        it(`${key} (${view}, ${unit}): the ungrouped value equals the reference`, async () => {
          const result = await compare([key]);
          assert.equal(result.first.status, 'ok');
          assert.equal(result.rows.length, 1);
          const definitions = result.first.metricDefinitions as { key: string; unit: string }[];
          assert.deepEqual(
            definitions.map((d) => [d.key, d.unit]),
            [[key, unit]],
          );
          assert.equal(ref.metrics.get(key)!.unit, unit);
        });

        it(`${key}: grouped by supplier, each supplier's value equals the reference`, async () => {
          const result = await compare([key], { dimensions: ['supplier'] });
          assert.ok(result.rows.length >= 2, 'the tiny seed has several suppliers');
        });

        it(`${key}: by month of ${VIEWS[view].time}, each month's value equals the reference`, async () => {
          const result = await compare([key], {
            dimensions: [VIEWS[view].time],
            timeGrain: 'month',
          });
          assert.ok(result.rows.length >= 6, 'the tiny seed spans many months');
        });
      }
    });

    describe('each view, all its metrics together', () => {
      for (const [view, { time, pair }] of Object.entries(VIEWS)) {
        it(`${view}: grouped by each of its dimensions in turn, every metric equals the reference`, async () => {
          const metrics = metricsOfView(ref, view);
          for (const dimension of ref.views.get(view)!.dimensions) {
            await compare(metrics, { dimensions: [dimension] });
          }
        });

        it(`${view}: every time grain of ${time} buckets to the ISO date of the bucket start`, async () => {
          const metrics = metricsOfView(ref, view);
          for (const timeGrain of GRAINS) {
            const result = await compare(metrics, { dimensions: [time], timeGrain });
            if (view === 'time_entries' && timeGrain === 'day')
              assert.ok(result.pages >= 2, 'more days than the row budget: read on by cursor');
            for (const row of result.rows) {
              const bucket = row[time] as string | null;
              if (bucket === null) continue;
              assert.match(bucket, /^\d{4}-\d{2}-\d{2}$/);
              if (timeGrain === 'week')
                assert.equal(new Date(`${bucket}T00:00:00Z`).getUTCDay(), 1);
              if (timeGrain === 'month') assert.ok(bucket.endsWith('-01'), bucket);
              if (timeGrain === 'quarter') assert.match(bucket, /-(01|04|07|10)-01$/);
              if (timeGrain === 'year') assert.ok(bucket.endsWith('-01-01'), bucket);
            }
          }
        });

        it(`${view}: grouped by ${pair.join(' and ')}, every metric equals the reference`, async () => {
          await compare(metricsOfView(ref, view), { dimensions: pair });
        });

        it(`${view}: grouped by ${pair[0]} and month within a timeRange, every metric equals the reference`, async () => {
          await compare(metricsOfView(ref, view), {
            dimensions: [pair[0], time],
            timeGrain: 'month',
            timeRange: { from: '2024-02-10', to: '2025-11-20' },
          });
        });

        it(`${view}: eq and neq filters on ${pair[1]} and on supplier keep exactly the matching facts (neq keeps nulls)`, async () => {
          const metrics = metricsOfView(ref, view);
          for (const [filtered, grouped] of [pair, [pair[1], pair[0]]]) {
            const values = [
              ...new Set(ref.views.get(view)!.facts.map((f) => f.dims[filtered])),
            ].filter((v): v is string => v !== null);
            assert.ok(values.length >= 2, `${view}.${filtered} has several values`);
            for (const value of values.slice(0, 3))
              for (const operator of ['eq', 'neq'] as const) {
                await compare(metrics, {
                  dimensions: [grouped],
                  filters: [{ dimension: filtered, operator, values: [value] }],
                });
              }
          }
        });
      }
    });

    describe('ws_enterprise: the same metrics and its custom ones, read from semantic_catalog', () => {
      let enterprise: { ref: Reference; token: string };
      before(async () => {
        enterprise = {
          ref: await buildReference(h.all, 'ws_enterprise', GOLDEN_TODAY, ENTERPRISE_EXTRA_METRICS),
          token: await createToken(
            h.store,
            { workspaceId: 'ws_enterprise', role: 'staff', scopes: ALL_SCOPES },
            new Date(),
          ),
        };
      });

      const keys = [...Object.keys(METRICS), ...ENTERPRISE_EXTRA_METRICS.map((m) => m.key)];
      it('the table catalog serves these metrics (and a disabled one is not among them)', async () => {
        const data = (await get(app, '/api/v1/reports/catalog', enterprise.token)).body.data;
        assert.equal(data.source, 'semantic_catalog_table');
        const served = data.metrics
          .filter((m: { evaluative: boolean }) => !m.evaluative)
          .map((m: { key: string }) => m.key)
          .sort();
        assert.deepEqual(served, [...keys].sort());
      });

      for (const key of keys) {
        it(`${key}: ungrouped and by supplier, equals the reference over ws_enterprise's rows`, async () => {
          const whole = await compareIn(enterprise, [key]);
          assert.equal(whole.rows.length, 1);
          await compareIn(enterprise, [key], { dimensions: ['supplier'] });
        });
      }
    });

    describe('explicit facts of the seed', () => {
      it('an eq filter on each expense category (emoji, right-to-left, zero-width text) keeps exactly its expenses', async () => {
        const categories = [
          ...new Set(ref.views.get('expenses')!.facts.map((f) => f.dims.expense_category)),
        ].filter((v): v is string => v !== null);
        assert.ok(
          categories.some((c) => /[\u200b-\u200d]/.test(c)),
          'a zero-width character',
        );
        assert.ok(
          categories.some((c) => /[\u0590-\u06ff]/.test(c)),
          'right-to-left text',
        );
        for (const category of categories) {
          await compare(metricsOfView(ref, 'expenses'), {
            dimensions: ['currency'],
            filters: [{ dimension: 'expense_category', operator: 'eq', values: [category] }],
          });
        }
      });

      it('corrections net out: a reversal cancels its original and the restatement counts instead', async () => {
        const corrected = await h.one<{
          work_date: string;
          supplier: string;
          pay_code: string;
          original: number;
          reversal: number;
          restated: number;
        }>(
          `SELECT o.work_date AS work_date, o.supplier_ref AS supplier, o.pay_code AS pay_code,
                  o.quantity_minutes AS original, r.quantity_minutes AS reversal, s.quantity_minutes AS restated
             FROM time_entries o
             JOIN time_entries r ON r.corrects_entry_id = o.id AND r.kind = 'reversal'
             JOIN time_entries s ON s.corrects_entry_id = o.id AND s.kind = 'restatement'
            WHERE o.workspace_id = ? AND o.kind = 'original' AND o.quantity_minutes IS NOT NULL
              AND s.quantity_minutes <> o.quantity_minutes
            ORDER BY o.id LIMIT 1`,
          WS,
        );
        assert.ok(corrected, 'the seed has a corrected hourly entry whose restatement differs');
        assert.equal(corrected.reversal, -corrected.original);

        // Hand-written: the entries still in force are originals nobody reversed, plus restatements.
        const live = async (where: string, ...params: unknown[]) =>
          h.one<{ minutes: number; n: number }>(
            `SELECT COALESCE(SUM(e.quantity_minutes), 0) AS minutes, COUNT(*) AS n FROM time_entries e
              WHERE e.workspace_id = ? ${where}
                AND (e.kind = 'restatement' OR (e.kind = 'original' AND e.id NOT IN (
                     SELECT r.corrects_entry_id FROM time_entries r
                      WHERE r.kind = 'reversal' AND r.corrects_entry_id IS NOT NULL)))`,
            WS,
            ...params,
          );
        const all = async (where: string, ...params: unknown[]) =>
          h.one<{ n: number; originals: number }>(
            `SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN kind = 'original' THEN quantity_minutes END), 0) AS originals
               FROM time_entries WHERE workspace_id = ? ${where}`,
            WS,
            ...params,
          );

        const onDay = 'AND work_date = ? AND supplier_ref = ? AND pay_code = ?';
        const args = [corrected.work_date, corrected.supplier, corrected.pay_code];
        const result = await runAll(app, token, {
          metrics: ['hours_worked', 'time_entry_count'],
          filters: [
            { dimension: 'work_date', operator: 'eq', values: [corrected.work_date] },
            { dimension: 'supplier', operator: 'eq', values: [corrected.supplier] },
            { dimension: 'pay_code', operator: 'eq', values: [corrected.pay_code] },
          ],
        });
        assert.equal(result.rows.length, 1);
        const hours = metricNumber(result.rows[0].hours_worked) as number;
        const expectedMinutes = (await live(onDay, ...args)).minutes;
        assert.ok(
          agrees(hours, expectedMinutes / 60, 'relative'),
          `${hours} h vs ${expectedMinutes} min`,
        );
        const originalsOnly = (await all(onDay, ...args)).originals;
        assert.notEqual(expectedMinutes, originalsOnly, 'the correction changes the day');
        assert.equal(
          expectedMinutes - originalsOnly,
          corrected.restated - corrected.original,
          'net change is restated minus original',
        );
        // Every kind is an entry: the original, its reversal and its restatement all count.
        assert.equal(metricNumber(result.rows[0].time_entry_count), (await all(onDay, ...args)).n);

        // Over the whole workspace too.
        const whole = await runAll(app, token, { metrics: ['hours_worked', 'time_entry_count'] });
        assert.ok(
          agrees(
            metricNumber(whole.rows[0].hours_worked),
            (await live('')).minutes / 60,
            'relative',
          ),
          'hours_worked equals the minutes still in force',
        );
        assert.equal(metricNumber(whole.rows[0].time_entry_count), (await all('')).n);
      });

      it('credit notes count negative in spend and in credit_note_total', async () => {
        const lines = await h.all<{ type: string; cents: number }>(
          `SELECT i.type AS type, SUM(l.amount_cents) AS cents FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
            WHERE l.workspace_id = ? AND i.status IN ('issued', 'pushed') GROUP BY i.type`,
          WS,
        );
        const credit = lines.find((l) => l.type === 'credit_note');
        const invoice = lines.find((l) => l.type === 'invoice');
        assert.ok(credit && invoice, 'the seed has billed invoices and credit notes');
        assert.ok(credit.cents < 0, 'credit-note lines are negative');

        const byType = await runAll(app, token, {
          metrics: ['spend'],
          dimensions: ['invoice_type'],
        });
        const spend = new Map(
          byType.rows.map((r) => [r.invoice_type as string, metricNumber(r.spend) as number]),
        );
        assert.equal(spend.get('credit_note'), credit.cents);
        assert.equal(spend.get('invoice'), invoice.cents);
        const total = await runAll(app, token, { metrics: ['spend'] });
        assert.equal(metricNumber(total.rows[0].spend), invoice.cents + credit.cents);

        const headers = await h.one<{ cents: number; n: number }>(
          `SELECT COALESCE(SUM(total_cents), 0) AS cents, COUNT(*) AS n FROM invoices
            WHERE workspace_id = ? AND type = 'credit_note' AND status IN ('issued', 'pushed')`,
          WS,
        );
        const invoices = await runAll(app, token, {
          metrics: ['credit_note_total', 'credit_note_rate', 'invoiced_total'],
        });
        assert.ok(headers.cents < 0);
        assert.equal(metricNumber(invoices.rows[0].credit_note_total), headers.cents);
        assert.ok((metricNumber(invoices.rows[0].invoiced_total) as number) > 0);
        assert.ok((metricNumber(invoices.rows[0].credit_note_rate) as number) > 0);
      });

      it('void and draft invoices are excluded from spend and invoiced totals but counted as invoices', async () => {
        const byStatus = await h.all<{ status: string; cents: number }>(
          `SELECT i.status AS status, SUM(l.amount_cents) AS cents FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
            WHERE l.workspace_id = ? GROUP BY i.status`,
          WS,
        );
        const cents = new Map(byStatus.map((r) => [r.status, r.cents]));
        for (const status of ['void', 'draft']) {
          assert.ok((cents.get(status) ?? 0) > 0, `the seed has ${status} invoices with lines`);
        }

        const lines = await runAll(app, token, {
          metrics: ['spend', 'labor_spend', 'expense_spend', 'overtime_spend'],
          dimensions: ['invoice_status'],
        });
        const row = (status: string) => lines.rows.find((r) => r.invoice_status === status);
        for (const status of ['void', 'draft']) {
          const r = row(status);
          assert.ok(r, `a ${status} row exists: its lines match the view`);
          for (const m of ['spend', 'labor_spend', 'expense_spend', 'overtime_spend'])
            assert.equal(metricNumber(r[m]), 0, `${m} of ${status} invoices`);
        }
        for (const status of ['issued', 'pushed'])
          assert.equal(metricNumber(row(status)?.spend), cents.get(status), `spend of ${status}`);

        const filtered = await runAll(app, token, {
          metrics: ['spend'],
          filters: [{ dimension: 'invoice_status', operator: 'in', values: ['void', 'draft'] }],
        });
        assert.equal(metricNumber(filtered.rows[0].spend), 0);

        const headers = await h.all<{ status: string; n: number }>(
          `SELECT status, COUNT(*) AS n FROM invoices WHERE workspace_id = ? GROUP BY status`,
          WS,
        );
        const invoices = await runAll(app, token, {
          metrics: ['invoice_count', 'invoiced_total', 'credit_note_total', 'invoice_cycle_days'],
          dimensions: ['invoice_status'],
        });
        for (const { status, n } of headers) {
          const r = invoices.rows.find((x) => x.invoice_status === status);
          assert.ok(r, status);
          assert.equal(metricNumber(r.invoice_count), n, `invoice_count of ${status}`);
          if (status === 'void' || status === 'draft') {
            assert.equal(metricNumber(r.invoiced_total), 0);
            assert.equal(metricNumber(r.credit_note_total), 0);
            assert.equal(r.invoice_cycle_days, null, `no cycle for ${status} invoices`);
          }
        }
      });

      it('avg_regular_rate is 60 × amount / minutes over billed regular minute lines, rounded half away from zero', async () => {
        const sums = await h.all<{ currency: string; amount: number; minutes: number }>(
          `SELECT l.currency AS currency, SUM(l.amount_cents) AS amount, SUM(l.quantity) AS minutes
             FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
            WHERE l.workspace_id = ? AND i.status IN ('issued', 'pushed') AND l.band = 'regular' AND l.unit = 'minutes'
            GROUP BY l.currency`,
          WS,
        );
        const result = await runAll(app, token, {
          metrics: ['avg_regular_rate'],
          dimensions: ['currency'],
        });
        assert.equal(result.rows.length, sums.length);
        for (const s of sums) {
          const exact = (60 * s.amount) / s.minutes;
          const rounded = Math.sign(exact) * Math.round(Math.abs(exact));
          const r = result.rows.find((x) => x.currency === s.currency);
          assert.equal(metricNumber(r?.avg_regular_rate), rounded, s.currency);
          assert.ok(Number.isInteger(metricNumber(r?.avg_regular_rate)));
        }
      });

      it('overtime hours follow the pay codes banded overtime or doubletime in the program configuration', async () => {
        const bands = [...ref.bands].filter(
          ([, band]) => band === 'overtime' || band === 'doubletime',
        );
        assert.ok(bands.length >= 2);
        const codes = bands.map(([code]) => code);
        const row = await h.one<{ ot: number; total: number }>(
          `SELECT SUM(quantity_minutes) AS ot, (SELECT SUM(quantity_minutes) FROM time_entries WHERE workspace_id = ?) AS total
             FROM time_entries WHERE workspace_id = ? AND pay_code IN (${codes.map(() => '?').join(', ')})`,
          WS,
          WS,
          ...codes,
        );
        const result = await runAll(app, token, {
          metrics: ['overtime_hours', 'overtime_hours_share', 'hours_worked'],
        });
        const r = result.rows[0];
        assert.ok(agrees(metricNumber(r.overtime_hours), row.ot / 60, 'relative'));
        assert.ok(agrees(metricNumber(r.overtime_hours_share), row.ot / row.total, 'relative'));
        assert.ok(agrees(metricNumber(r.hours_worked), row.total / 60, 'relative'));
      });

      it('avg_tenure_days counts whole days from tenure_start to the service clock', async () => {
        // Hand-written: the tenure starts from SQL, the whole days between them and today in JS.
        const starts = await h.all<{ tenure_start: string }>(
          `SELECT tenure_start FROM workers WHERE workspace_id = ? AND tenure_start IS NOT NULL`,
          WS,
        );
        assert.ok(starts.length > 0);
        const days = starts.map((w) => daysBetween(w.tenure_start, GOLDEN_TODAY));
        const row = { days: days.reduce((a, b) => a + b, 0) / days.length };
        const result = await runAll(app, token, { metrics: ['avg_tenure_days'] });
        assert.ok(agrees(metricNumber(result.rows[0].avg_tenure_days), row.days, 'relative'));
      });

      it('a timeRange with no facts answers empty with no rows', async () => {
        for (const [key, [view]] of Object.entries(METRICS)) {
          const result = await runAll(app, token, {
            metrics: [key],
            timeRange: { from: '2001-01-01', to: '2001-12-31' },
          });
          assert.equal(result.first.status, 'empty', `${key} on ${view}`);
          assert.deepEqual(result.rows, []);
        }
      });

      it('grouped rows arrive in ascending code-point order of the dimension, nulls last', async () => {
        for (const [view, { time }] of Object.entries(VIEWS)) {
          const model = ref.views.get(view)!;
          for (const dimension of [...model.dimensions, time]) {
            const result = await runAll(app, token, {
              metrics: [metricsOfView(ref, view)[0]],
              dimensions: [dimension],
              timeGrain: dimension === time ? 'month' : null,
              limit: 1000,
            });
            const values = result.rows.map((r) =>
              dimValue(r, dimension, model.textDimensions.includes(dimension)),
            );
            for (let i = 1; i < values.length; i++) {
              const [a, b] = [values[i - 1], values[i]];
              assert.ok(
                b === null || (a !== null && compareCodePoints(a, b) < 0),
                `${view}.${dimension}: ${JSON.stringify(a)} before ${JSON.stringify(b)}`,
              );
            }
          }
        }
      });
    });
  });
