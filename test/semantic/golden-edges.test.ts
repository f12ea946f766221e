/**
 * Golden edge cases the tiny seed cannot reach: a few hand-made facts are added to a fresh
 * harness database (one per dialect), in 2030 (far outside the seed's 36 months), and queried
 * with a timeRange that sees only them. Expected values are worked out by hand in each test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { metricNumber, runAll, goldenClock } from '../support/golden-api.js';
import { createToken } from '../../src/auth/tokens.js';
import { ALL_SCOPES, GOLDEN_SETUPS, startHarness, WS, type Harness } from '../support/harness.js';

const STAMP = '2030-02-03T00:00:00.000Z';
const JANUARY_2030 = { from: '2030-01-01', to: '2030-01-31' };
/** 2^53 + 1: not a double, so only an exact integer path gets it right. */
const BEYOND_2_53 = 9007199254740993n;

const INVOICE = `INSERT INTO invoices (id, workspace_id, supplier_ref, type, number, status, grouping_rule, group_key,
     period_start, period_end, currency, total_cents, config_version, corrects_invoice_ref, issued_at, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, 'per_worker', 'golden', '2030-01-01', '2030-01-31', 'USD', ?, 1, NULL, ?, ?, ?)`;
const LINE = `INSERT INTO invoice_lines (id, workspace_id, invoice_id, supplier_ref, source_type, source_ref, worker_ref,
     assignment_ref, org_unit_key, pay_code, band, description, quantity, unit, rate_cents, multiplier_bp,
     amount_cents, currency, currency_mismatch, created_at)
   VALUES (?, ?, ?, ?, 'timesheet', 'tsh_golden', NULL, NULL, 'OU-GOLD', 'REG', ?, 'golden', ?, 'minutes', 0, 10000, ?, 'USD', 0, ?)`;
const ENTRY = `INSERT INTO time_entries (id, workspace_id, timesheet_id, assignment_id, worker_id, supplier_ref, work_date,
     pay_code, quantity_minutes, quantity_units, kind, corrects_entry_id, captured_on_behalf, created_at)
   VALUES (?, ?, ?, ?, ?, 'GOLD-A', '2030-01-15', ?, ?, NULL, 'original', NULL, 0, ?)`;
const EXPENSE = `INSERT INTO expenses (id, workspace_id, worker_id, assignment_id, supplier_ref, category, incurred_on,
     amount_cents, currency, status, created_at, updated_at)
   VALUES (?, 'ws_enterprise', ?, ?, 'GOLD-A', 'Travel', ?, ?, 'USD', ?, ?, ?)`;

for (const { dialect, rollups, label } of GOLDEN_SETUPS)
  describe(`golden edge cases on hand-made facts (${label})`, () => {
    let h: Harness;
    let app: FastifyInstance;
    let token: string;

    after(() => h.close());

    before(async () => {
      // The harness's database is its own fresh copy of the tiny seed (openTestDatabase).
      h = await startHarness({ dialect, rollups, now: goldenClock });
      app = h.app;
      token = h.tokens.staff;
      const insert = async (sql: string, ...params: unknown[]) =>
        assert.equal(await h.store.run(sql, params), 1, `inserted ${String(params[0])}`);
      await insert(
        INVOICE,
        'inv_golden_1',
        WS,
        'GOLD-A',
        'invoice',
        'G-1',
        'issued',
        BEYOND_2_53,
        STAMP,
        STAMP,
        STAMP,
      );
      await insert(
        INVOICE,
        'inv_golden_2',
        WS,
        'GOLD-B',
        'invoice',
        'G-2',
        'pushed',
        2n,
        STAMP,
        STAMP,
        STAMP,
      );

      // Supplier GOLD-A: 2^52 + 1 and 2^52 cents of overtime, summing to 2^53 + 1.
      await insert(
        LINE,
        'lin_golden_1',
        WS,
        'inv_golden_1',
        'GOLD-A',
        'overtime',
        60,
        4503599627370497n,
        STAMP,
      );
      await insert(
        LINE,
        'lin_golden_2',
        WS,
        'inv_golden_1',
        'GOLD-A',
        'overtime',
        60,
        4503599627370496n,
        STAMP,
      );
      // Regular rates: 60 × 1 / 24 = 2.5 → 3; 60 × -1 / 24 = -2.5 → -3; 60 × 7 / 169 = 2.485… → 2.
      await insert(LINE, 'lin_golden_3', WS, 'inv_golden_2', 'GOLD-UP', 'regular', 24, 1n, STAMP);
      await insert(
        LINE,
        'lin_golden_4',
        WS,
        'inv_golden_2',
        'GOLD-DOWN',
        'regular',
        24,
        -1n,
        STAMP,
      );
      await insert(
        LINE,
        'lin_golden_5',
        WS,
        'inv_golden_2',
        'GOLD-NEAR',
        'regular',
        169,
        7n,
        STAMP,
      );

      // A time entry on a pay code the program configuration does not know: its band is null.
      const any = await h.one<{ timesheet_id: string; assignment_id: string; worker_id: string }>(
        `SELECT e.timesheet_id, e.assignment_id, e.worker_id FROM time_entries e JOIN timesheets t ON t.id = e.timesheet_id
        WHERE e.workspace_id = ? AND t.entry_mode = 'hourly' ORDER BY e.id LIMIT 1`,
        WS,
      );
      assert.ok(any, 'the seed has an hourly time entry');
      await insert(
        ENTRY,
        'ent_golden_1',
        WS,
        any.timesheet_id,
        any.assignment_id,
        any.worker_id,
        'ZZZ',
        90,
        STAMP,
      );
      await insert(
        ENTRY,
        'ent_golden_2',
        WS,
        any.timesheet_id,
        any.assignment_id,
        any.worker_id,
        'OT',
        30,
        STAMP,
      );
      // Rows written outside a bulk load reach the columnar copies by an explicit refresh.
      await h.store.refreshReportFacts();
    });
    it('a max over integer cents beyond 2^53 (ws_enterprise max_expense) arrives as the exact numeric string', async () => {
      const a = await h.one<{ id: string; worker_id: string }>(
        `SELECT id, worker_id FROM assignments WHERE workspace_id = 'ws_enterprise' ORDER BY id LIMIT 1`,
      );
      assert.ok(a, 'ws_enterprise has an assignment');
      for (const [id, on, cents] of [
        ['exp_golden_1', '2030-01-10', BEYOND_2_53],
        ['exp_golden_2', '2030-01-11', 5n],
      ] as const) {
        const changed = await h.store.run(EXPENSE, [
          id,
          a.worker_id,
          a.id,
          on,
          cents,
          'approved',
          STAMP,
          STAMP,
        ]);
        assert.equal(changed, 1, `inserted ${id}`);
      }
      const enterprise = await createToken(
        h.store,
        { workspaceId: 'ws_enterprise', role: 'staff', scopes: ALL_SCOPES },
        new Date(),
      );
      const result = await runAll(app, enterprise, {
        metrics: ['max_expense', 'expense_total'],
        timeRange: JANUARY_2030,
      });
      assert.equal(result.rows[0].expense_total, (BEYOND_2_53 + 5n).toString(), 'the sum is exact');
      assert.equal(result.rows[0].max_expense, BEYOND_2_53.toString(), 'the max is exact');
    });

    it('a cents sum beyond 2^53 arrives as the exact numeric string', async () => {
      const spend = await runAll(app, token, {
        metrics: ['spend', 'overtime_spend'],
        dimensions: ['supplier'],
        timeRange: JANUARY_2030,
      });
      const a = spend.rows.find((r) => (r.supplier as { value: string }).value === 'GOLD-A');
      assert.ok(a);
      assert.equal(a.spend, BEYOND_2_53.toString());
      assert.equal(a.overtime_spend, BEYOND_2_53.toString());

      const invoiced = await runAll(app, token, {
        metrics: ['invoiced_total'],
        timeRange: { from: '2030-02-01', to: '2030-02-28' },
      });
      assert.equal(invoiced.rows[0].invoiced_total, (BEYOND_2_53 + 2n).toString());
    });

    it('avg_regular_rate rounds half away from zero, both signs', async () => {
      const result = await runAll(app, token, {
        metrics: ['avg_regular_rate'],
        dimensions: ['supplier'],
        timeRange: JANUARY_2030,
      });
      const rate = new Map(
        result.rows.map((r) => [(r.supplier as { value: string }).value, r.avg_regular_rate]),
      );
      assert.equal(rate.get('GOLD-UP'), 3);
      assert.equal(rate.get('GOLD-DOWN'), -3);
      assert.equal(rate.get('GOLD-NEAR'), 2);
      assert.equal(rate.get('GOLD-A'), null, 'no regular minutes: no rate');
    });

    it('a pay code missing from the program configuration has a null band: its own row, last, not overtime', async () => {
      const result = await runAll(app, token, {
        metrics: ['hours_worked', 'overtime_hours', 'overtime_hours_share'],
        dimensions: ['band'],
        timeRange: JANUARY_2030,
      });
      assert.deepEqual(
        result.rows.map((r) => [
          r.band,
          metricNumber(r.hours_worked),
          metricNumber(r.overtime_hours),
        ]),
        [
          ['overtime', 0.5, 0.5],
          [null, 1.5, 0],
        ],
      );
      const whole = await runAll(app, token, {
        metrics: ['overtime_hours_share'],
        timeRange: JANUARY_2030,
      });
      assert.equal(metricNumber(whole.rows[0].overtime_hours_share), 30 / 120);
    });
  });
