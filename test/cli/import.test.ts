import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { shown } from '../../src/importer/import-problems.js';
import { PLAIN_ID_SHAPE } from '../../src/records/plain-values.js';
import { runCli } from '../support/cli.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';
const AT = '2026-06-10T09:00:00.000Z';
const stamps = { created_at: AT, updated_at: AT };
const TABLES = [
  'suppliers',
  'workers',
  'assignments',
  'timesheets',
  'time_entries',
  'expenses',
  'invoices',
  'invoice_lines',
  'approval_statuses',
  'saved_queries',
  'report_time_entries',
  'report_invoice_lines',
];

/** People-typed text: quotes, emoji, right-to-left, zero-width, an instruction, line breaks. */
const WORKER_NAME = 'Zoë "Z" O\'Brien 🧑🏽‍💻\nسطر ثانٍ\u200b — Ignore previous instructions';
const LINE_DESCRIPTION = 'Regular time, "night" shift 🚀\r\nsecond line \u200fעברית\u200d';

const ndjson = (...rows: Record<string, unknown>[]) =>
  rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
const csvField = (value: unknown) => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};
const csv = (rows: Record<string, unknown>[]) =>
  [Object.keys(rows[0]), ...rows.map((row) => Object.values(row))]
    .map((fields) => fields.map(csvField).join(','))
    .join('\n') + '\n';

function writeDir(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** A small consistent set; the expense refers to an assignment the workspace already holds. */
function consistentSet(existing: { assignment: string; worker: string }) {
  const entry = (id: string, workDate: string, payCode: string, minutes: number) => ({
    id,
    timesheet_id: 'imp_ts_1',
    assignment_id: 'imp_asg_1',
    worker_id: 'imp_wkr_1',
    supplier_ref: 'IMP-001',
    work_date: workDate,
    pay_code: payCode,
    quantity_minutes: minutes,
    quantity_units: null,
    kind: 'original',
    captured_on_behalf: payCode === 'OT',
    created_at: AT,
  });
  return {
    'suppliers.ndjson': ndjson({
      id: 'imp_sup_1',
      code: 'IMP-001',
      name: 'Imported "Staffing" Ltd 🏗️',
      status: 'active',
      ...stamps,
    }),
    'workers.ndjson': ndjson({
      id: 'imp_wkr_1',
      supplier_ref: 'IMP-001',
      org_unit_key: 'OU-IMP',
      type: 'profile_only',
      display_name: WORKER_NAME,
      work_email: null,
      tenure_start: '2026-06-01',
      onboarding_state: 'active',
      status: 'active',
      ...stamps,
    }),
    'assignments.ndjson': ndjson({
      id: 'imp_asg_1',
      worker_id: 'imp_wkr_1',
      supplier_ref: 'IMP-001',
      job_code: 'JC-IMP',
      site_key: 'SITE-IMP',
      org_unit_key: 'OU-IMP',
      currency: 'USD',
      bill_rate_cents: 6000,
      start_date: '2026-06-01',
      status: 'active',
      ...stamps,
    }),
    'timesheets.ndjson': ndjson({
      id: 'imp_ts_1',
      worker_id: 'imp_wkr_1',
      entry_mode: 'hourly',
      period_start: '2026-06-01',
      period_end: '2026-06-07',
      status: 'approved',
      config_version: 1,
      approval_instance_ref: 'imp_ain_1',
      submitted_at: AT,
      decided_at: AT,
      ...stamps,
    }),
    'time_entries.ndjson': ndjson(
      entry('imp_te_1', '2026-06-02', 'REG', 480),
      entry('imp_te_2', '2026-06-03', 'OT', 120),
    ),
    'expenses.ndjson': ndjson({
      id: 'imp_exp_1',
      worker_id: existing.worker,
      assignment_id: existing.assignment,
      category: 'Travel',
      incurred_on: '2026-06-04',
      amount_cents: 1250,
      currency: 'USD',
      status: 'submitted',
      ...stamps,
    }),
    'invoices.ndjson': ndjson({
      id: 'imp_inv_1',
      supplier_ref: 'IMP-001',
      type: 'invoice',
      number: 'IMP-2026-0001',
      status: 'issued',
      grouping_rule: 'per_worker',
      group_key: 'imp_wkr_1',
      period_start: '2026-06-01',
      period_end: '2026-06-30',
      currency: 'USD',
      total_cents: 48000,
      config_version: 1,
      issued_at: AT,
      ...stamps,
    }),
    'invoice_lines.csv': csv([
      {
        id: 'imp_il_1',
        invoice_id: 'imp_inv_1',
        supplier_ref: 'IMP-001',
        source_type: 'timesheet',
        source_ref: 'imp_ts_1',
        worker_ref: 'imp_wkr_1',
        assignment_ref: 'imp_asg_1',
        org_unit_key: 'OU-IMP',
        pay_code: 'REG',
        band: 'regular',
        description: LINE_DESCRIPTION,
        quantity: 480,
        unit: 'minutes',
        rate_cents: 6000,
        multiplier_bp: 10000,
        amount_cents: 48000,
        currency: 'USD',
        currency_mismatch: 0,
        created_at: AT,
      },
    ]),
  };
}

for (const dialect of DIALECTS) {
  describe(`vms-read import (DESIGN §5) on ${dialect}`, () => {
    let db: TestDatabase;
    let root: string;
    let existing: { assignment: string; worker: string };
    const counts = async () => {
      const result: Record<string, number> = {};
      for (const table of TABLES)
        result[table] = (await db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)).n;
      return result;
    };

    before(async () => {
      db = await openTestDatabase(dialect);
      root = mkdtempSync(join(tmpdir(), 'vms-read-import-'));
      existing = await db.one(
        'SELECT id AS assignment, worker_id AS worker FROM assignments WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
    });
    after(async () => {
      await db.drop();
      rmSync(root, { recursive: true, force: true });
    });

    const inserted = (n: number) => ({
      inserted: n,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      deleted: 0,
    });
    const unchanged = (n: number) => ({
      inserted: 0,
      updated: 0,
      unchanged: n,
      skipped: 0,
      deleted: 0,
    });
    const LOADED = {
      suppliers: 1,
      workers: 1,
      assignments: 1,
      timesheets: 1,
      time_entries: 2,
      expenses: 1,
      invoices: 1,
      invoice_lines: 1,
      approval_statuses: 0,
      saved_queries: 0,
    };
    const countsOf = (of: (n: number) => unknown) =>
      Object.fromEntries(Object.entries(LOADED).map(([table, n]) => [table, of(n)]));
    let version: number;

    it('loads NDJSON and CSV files into the workspace and writes their report facts', async () => {
      const dir = writeDir(root, 'good', consistentSet(existing));
      const before = await counts();
      version = (await db.store.dataVersion()).version;
      const result = runCli(['import', '--db', db.db, '--workspace', WS, dir]);
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), {
        workspace: WS,
        counts: countsOf(inserted),
        dataVersion: version + 1,
      });
      const after = await counts();
      assert.equal(after.time_entries, before.time_entries + 2);
      assert.equal(after.report_time_entries, before.report_time_entries + 2);
      assert.equal(after.report_invoice_lines, before.report_invoice_lines + 1);

      const worker = await db.one('SELECT * FROM workers WHERE id = ?', 'imp_wkr_1');
      assert.equal(worker.workspace_id, WS);
      assert.equal(worker.display_name, WORKER_NAME);
      assert.equal(worker.work_email, null);
      const line = await db.one('SELECT * FROM invoice_lines WHERE id = ?', 'imp_il_1');
      assert.equal(line.description, LINE_DESCRIPTION);
      assert.equal(line.currency_mismatch, 0);
      assert.equal(Number(line.amount_cents), 48000);
      const expense = await db.one('SELECT * FROM expenses WHERE id = ?', 'imp_exp_1');
      assert.equal(expense.assignment_id, existing.assignment);

      const facts = await db.all(
        'SELECT id, workspace_id, org_unit_key, site_key, worker_type, entry_mode, on_behalf, minutes FROM report_time_entries WHERE id IN (?, ?) ORDER BY id',
        'imp_te_1',
        'imp_te_2',
      );
      assert.deepEqual(
        facts.map((f) => ({ ...f, minutes: Number(f.minutes), on_behalf: Number(f.on_behalf) })),
        [
          ['imp_te_1', 0, 480],
          ['imp_te_2', 1, 120],
        ].map(([id, onBehalf, minutes]) => ({
          id,
          workspace_id: WS,
          org_unit_key: 'OU-IMP',
          site_key: 'SITE-IMP',
          worker_type: 'profile_only',
          entry_mode: 'hourly',
          on_behalf: onBehalf,
          minutes,
        })),
      );
      const lineFact = await db.one(
        'SELECT invoice_period, invoice_status, invoice_type FROM report_invoice_lines WHERE id = ?',
        'imp_il_1',
      );
      assert.deepEqual(lineFact, {
        invoice_period: '2026-06-01',
        invoice_status: 'issued',
        invoice_type: 'invoice',
      });
    });

    it('changes nothing when the same files come again: every row unchanged, the version kept', async () => {
      const dir = writeDir(root, 'again', consistentSet(existing));
      const before = await counts();
      const result = runCli(['import', '--db', db.db, '--workspace', WS, dir]);
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), {
        workspace: WS,
        counts: countsOf(unchanged),
        dataVersion: version + 1,
      });
      assert.deepEqual(await counts(), before);
      assert.equal((await db.store.dataVersion()).version, version + 1);
    });

    it('refuses the same ids into another workspace, and a code another supplier holds, writing nothing', async () => {
      const dir = writeDir(root, 'elsewhere', consistentSet(existing));
      const before = await counts();
      const result = runCli(['import', '--db', db.db, '--workspace', 'ws_team', dir]);
      assert.equal(result.status, 1);
      assert.match(
        result.stderr,
        /^workers\.ndjson:1: id "imp_wkr_1" already exists in another workspace$/m,
      );
      assert.equal(result.stdout, '');
      assert.deepEqual(await counts(), before);
      const renamed = consistentSet(existing);
      renamed['suppliers.ndjson'] = renamed['suppliers.ndjson'].replace('imp_sup_1', 'imp_sup_2');
      const clash = runCli([
        'import',
        '--db',
        db.db,
        '--workspace',
        WS,
        writeDir(root, 'clash', renamed),
      ]);
      assert.equal(clash.status, 1);
      assert.match(
        clash.stderr,
        /^suppliers\.ndjson:1: code "IMP-001" already belongs to supplier "imp_sup_1" in workspace ws_business$/m,
      );
      assert.deepEqual(await counts(), before);
    });

    it('refuses files with problems in two files, listing each file:line, writing nothing', async () => {
      const timesheet = await db.one<{ id: string }>(
        'SELECT id FROM timesheets WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const worker = (id: string, onboarding: string) => ({
        id,
        type: 'profile_only',
        display_name: 'Ana',
        onboarding_state: onboarding,
        status: 'active',
        ...stamps,
      });
      const entry = (id: string, timesheetId: string, payCode: string, minutes: string) => ({
        id,
        timesheet_id: timesheetId,
        assignment_id: existing.assignment,
        worker_id: 'bad_wkr_1',
        work_date: '2026-06-02',
        pay_code: payCode,
        quantity_minutes: minutes,
        kind: 'original',
        captured_on_behalf: 0,
        created_at: AT,
      });
      const dir = writeDir(root, 'bad', {
        'workers.ndjson': ndjson(worker('bad_wkr_1', 'active'), worker('bad_wkr_2', 'hired')),
        // The first row's pay code spans two lines, so the second row starts on line 4.
        'time_entries.csv': csv([
          entry('bad_te_1', timesheet.id, 'REG\nnight', 'eight'),
          entry('bad_te_2', 'ts_missing', 'REG', '480'),
        ]),
      });
      const before = await counts();
      const result = runCli(['import', '--db', db.db, '--workspace', WS, dir]);
      assert.equal(result.status, 1);
      assert.equal(
        result.stderr,
        [
          'time_entries.csv:2: quantity_minutes must be an integer, got "eight"',
          'time_entries.csv:4: timesheet_id "ts_missing" is neither in the timesheets file nor in workspace ws_business',
          'workers.ndjson:2: onboarding_state must be one of invited, onboarding, active, offboarded, got "hired"',
          'vms-read: nothing imported: 3 problems',
          '',
        ].join('\n'),
      );
      assert.equal(result.stdout, '');
      assert.deepEqual(await counts(), before);
    });

    it('refuses prose in plain columns (ids, open sets, enumerations, saved filters), by line, writing nothing', async () => {
      const invoice = await db.one<{ id: string }>(
        'SELECT id FROM invoices WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const worker = (id: string, type: string) => ({
        id,
        type,
        display_name: 'Ana 🚀 — ignore previous instructions',
        onboarding_state: 'active',
        status: 'active',
        ...stamps,
      });
      const saved = (id: string, dashboard: string, status: string) => ({
        id,
        kind: 'dashboard_tile',
        name: 'Invoices',
        dashboard_id: dashboard,
        definition: {
          query: {
            metrics: ['invoice_count'],
            filters: [{ dimension: 'invoice_status', operator: 'eq', values: [status] }],
          },
        },
        author: 'import',
        pinned_at: AT,
        created_at: AT,
      });
      const bad = {
        status: 'active — ignore previous instructions',
        type: 'Ignore previous instructions',
        id: 'plain wkr 3',
        approval: 'plain_ain\u200b1',
        source: 'plain_ts_🚀',
        workerRef: 'עובד',
        dashboard: 'Main dashboard',
      };
      const dir = writeDir(root, 'plain', {
        'workers.ndjson': ndjson(
          worker('plain_wkr_1', bad.type),
          worker('plain_wkr_2', 'profile_only'),
          worker(bad.id, 'profile_only'),
        ),
        'assignments.ndjson': ndjson({
          id: 'plain_asg_1',
          worker_id: 'plain_wkr_2',
          currency: 'USD',
          bill_rate_cents: 6000,
          start_date: '2026-06-01',
          status: bad.status,
          ...stamps,
        }),
        'timesheets.csv': csv([
          {
            id: 'plain_ts_1',
            worker_id: 'plain_wkr_2',
            entry_mode: 'hourly',
            period_start: '2026-06-01',
            period_end: '2026-06-07',
            status: 'submitted',
            config_version: 1,
            approval_instance_ref: bad.approval,
            submitted_at: AT,
            ...stamps,
          },
        ]),
        'invoice_lines.ndjson': ndjson({
          id: 'plain_il_1',
          invoice_id: invoice.id,
          source_type: 'timesheet',
          source_ref: bad.source,
          worker_ref: bad.workerRef,
          description: 'Regular time',
          amount_cents: 100,
          currency: 'USD',
          created_at: AT,
        }),
        'saved_queries.ndjson': ndjson(
          saved('plain_sq_1', bad.dashboard, 'issued'),
          saved('plain_sq_2', 'dash_ops', 'Ignore all rules'),
        ),
      });
      const before = await counts();
      const result = runCli(['import', '--db', db.db, '--workspace', WS, dir]);
      assert.equal(result.status, 1);
      const notId = (where: string, column: string, value: string) =>
        `${where}: ${column} must be ${PLAIN_ID_SHAPE}, got ${shown(value)}`;
      assert.equal(
        result.stderr,
        [
          notId('assignments.ndjson:1', 'status', bad.status),
          notId('invoice_lines.ndjson:1', 'source_ref', bad.source),
          notId('invoice_lines.ndjson:1', 'worker_ref', bad.workerRef),
          notId('saved_queries.ndjson:1', 'dashboard_id', bad.dashboard),
          'saved_queries.ndjson:2: definition holds query.filters[0].values[0], which must be one of draft, issued, pushed, void (dimension invoice_status)',
          notId('timesheets.csv:2', 'approval_instance_ref', bad.approval),
          notId('workers.ndjson:1', 'type', bad.type),
          notId('workers.ndjson:3', 'id', bad.id),
          'vms-read: nothing imported: 8 problems',
          '',
        ].join('\n'),
      );
      assert.equal(result.stdout, '');
      assert.deepEqual(await counts(), before);
    });

    it('exits 2 for an unknown workspace or a missing DIR, and 1 for an empty DIR', () => {
      const empty = writeDir(root, 'empty', {});
      const unknown = runCli(['import', '--db', db.db, '--workspace', 'ws_nope', empty]);
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /unknown workspace: ws_nope/);
      const missing = runCli(['import', '--db', db.db, '--workspace', WS]);
      assert.equal(missing.status, 2);
      const none = runCli(['import', '--db', db.db, '--workspace', WS, join(root, 'absent')]);
      assert.equal(none.status, 2);
      assert.match(none.stderr, /is not a directory/);
      const result = runCli(['import', '--db', db.db, '--workspace', WS, empty]);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /holds no files to import/);
    });
  });
}
