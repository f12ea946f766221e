import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProgramConfig } from '../../src/store/program-config.js';
import type { Row } from '../../src/store/sink.js';
import { groupBy, tinySeed, WORKSPACE_IDS } from './memory-sink.js';

function index(rows: Row[], column = 'id'): Map<string, Row> {
  return new Map(rows.map((r) => [String(r[column]), r]));
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) assert.fail(`missing ${what}`);
  return value;
}

describe('seed referential integrity (tiny)', () => {
  it('links every reference to an existing record of the same workspace', async () => {
    const { sink } = await tinySeed();
    for (const ws of WORKSPACE_IDS) {
      const config = JSON.parse(String(sink.of('program_configs', ws)[0].config)) as ProgramConfig;
      const orgUnits = new Set(config.orgUnits.map((o) => o.key));
      const payCodes = new Map(config.payCodes.map((p) => [p.code, p]));
      const suppliers = index(sink.of('suppliers', ws), 'code');
      const workers = index(sink.of('workers', ws));
      const assignments = index(sink.of('assignments', ws));
      const timesheets = index(sink.of('timesheets', ws));
      const expenses = index(sink.of('expenses', ws));
      const entries = index(sink.of('time_entries', ws));
      for (const w of workers.values()) {
        assert.ok(
          suppliers.has(String(w.supplier_ref)) && orgUnits.has(String(w.org_unit_key)),
          'worker supplier and org unit',
        );
      }
      for (const a of assignments.values()) {
        const w = must(workers.get(String(a.worker_id)), 'assignment worker');
        assert.equal(a.supplier_ref, w.supplier_ref);
        assert.ok(
          config.jobCodes.some((j) => j.key === a.job_code) &&
            config.sites.some((s) => s.key === a.site_key),
        );
        assert.ok(
          orgUnits.has(String(a.org_unit_key)) &&
            ['USD', 'EUR', 'GBP'].includes(String(a.currency)),
        );
        assert.ok(Number(a.bill_rate_cents) > 0);
      }
      for (const t of timesheets.values()) {
        assert.ok(workers.has(String(t.worker_id)));
        const draft = t.status === 'draft';
        assert.equal(t.approval_instance_ref === null, draft, 'approval ref null iff draft');
        assert.equal(t.submitted_at === null, draft, 'submitted_at null iff draft');
        assert.equal(
          t.decided_at !== null,
          t.status === 'approved' || t.status === 'rejected',
          'decided iff decided',
        );
      }
      for (const e of entries.values()) {
        const t = must(timesheets.get(String(e.timesheet_id)), 'entry timesheet');
        const a = must(assignments.get(String(e.assignment_id)), 'entry assignment');
        assert.ok(e.worker_id === t.worker_id && a.worker_id === e.worker_id, 'entry worker');
        assert.equal(e.supplier_ref, workers.get(String(e.worker_id))?.supplier_ref);
        assert.ok(payCodes.has(String(e.pay_code)));
        assert.ok(
          String(e.work_date) >= String(t.period_start) &&
            String(e.work_date) <= String(t.period_end),
        );
        const hourly = t.entry_mode === 'hourly';
        assert.equal(e.quantity_minutes === null, !hourly);
        assert.equal(e.quantity_units === null, hourly);
        if (e.kind === 'original') assert.equal(e.corrects_entry_id, null);
        else {
          const original = must(entries.get(String(e.corrects_entry_id)), 'corrected entry');
          assert.equal(original.timesheet_id, e.timesheet_id);
          assert.equal(original.kind, 'original');
          assert.equal(t.status, 'approved');
          if (e.kind === 'reversal') {
            assert.equal(
              e.quantity_minutes,
              original.quantity_minutes === null ? null : -Number(original.quantity_minutes),
            );
            assert.equal(
              e.quantity_units,
              original.quantity_units === null ? null : -Number(original.quantity_units),
            );
          }
        }
      }
      for (const x of expenses.values()) {
        const a = must(assignments.get(String(x.assignment_id)), 'expense assignment');
        assert.equal(a.worker_id, x.worker_id);
        assert.ok(config.expenseCategories.includes(String(x.category)));
      }
      checkInvoices(sink.of('invoices', ws), sink.of('invoice_lines', ws), {
        timesheets,
        expenses,
        workers,
        assignments,
        payCodes,
      });
      checkApprovals(sink.of('approval_statuses', ws), { timesheets, expenses, workers });
    }
  });
});

interface Known {
  timesheets: Map<string, Row>;
  expenses: Map<string, Row>;
  workers: Map<string, Row>;
  assignments?: Map<string, Row>;
  payCodes?: Map<string, { band: string; multiplierBp: number }>;
}

function checkInvoices(invoices: Row[], lines: Row[], known: Known): void {
  const byInvoice = groupBy(lines, 'invoice_id');
  const ids = index(invoices);
  for (const i of invoices) {
    const own = byInvoice.get(String(i.id)) ?? [];
    assert.ok(own.length > 0, 'invoice has lines');
    assert.equal(
      own.reduce((sum, l) => sum + Number(l.amount_cents), 0),
      i.total_cents,
      'total = sum of lines',
    );
    assert.equal(i.number === null, i.status === 'draft', 'number null iff draft');
    assert.equal(i.issued_at === null, i.status === 'draft', 'issued_at null iff draft');
    assert.equal(
      i.supplier_ref === null,
      i.grouping_rule === 'consolidated',
      'supplier null iff consolidated',
    );
    assert.equal(i.corrects_invoice_ref !== null, i.type === 'credit_note');
    if (i.type === 'credit_note') assert.ok(ids.has(String(i.corrects_invoice_ref)));
    for (const l of own) {
      assert.equal(l.currency, i.currency);
      if (i.supplier_ref !== null) assert.equal(l.supplier_ref, i.supplier_ref);
    }
    if (i.grouping_rule === 'consolidated' && i.type === 'invoice') {
      assert.ok(new Set(own.map((l) => l.supplier_ref)).size >= 2, 'consolidated spans suppliers');
    }
  }
  for (const l of lines) {
    assert.ok(ids.has(String(l.invoice_id)));
    assert.ok(
      known.workers.has(String(l.worker_ref)) && known.assignments?.has(String(l.assignment_ref)),
    );
    assert.ok(l.currency_mismatch === 0 || l.currency_mismatch === 1);
    if (l.source_type === 'timesheet') {
      assert.equal(known.timesheets.get(String(l.source_ref))?.status, 'approved');
      const pay = must(known.payCodes?.get(String(l.pay_code)), 'line pay code');
      assert.equal(l.band, pay.band);
      assert.equal(l.multiplier_bp, pay.multiplierBp);
      const divisor = l.unit === 'minutes' ? 600_000 : 10_000;
      const magnitude = Math.round(
        (Math.abs(Number(l.quantity)) * Number(l.rate_cents) * pay.multiplierBp) / divisor,
      );
      assert.equal(
        Math.abs(Number(l.amount_cents)),
        magnitude,
        'amount = quantity × rate × multiplier',
      );
    } else {
      assert.equal(l.source_type, 'expense');
      assert.equal(known.expenses.get(String(l.source_ref))?.status, 'approved');
      assert.ok(l.pay_code === null && l.band === 'expense' && l.unit === 'expense');
    }
  }
}

function checkApprovals(rows: Row[], known: Known): void {
  const routed = new Set<string>();
  for (const s of rows) {
    const subjects = s.subject_type === 'timesheet' ? known.timesheets : known.expenses;
    const subject = must(subjects.get(String(s.subject_ref)), `approval subject ${s.subject_ref}`);
    assert.notEqual(subject.status, 'draft');
    assert.equal(s.worker_id, subject.worker_id);
    assert.equal(s.supplier_ref, known.workers.get(String(s.worker_id))?.supplier_ref);
    assert.ok(Number(s.step) >= 1);
    assert.equal(s.decided_at === null, s.state === 'pending', 'decided_at null iff pending');
    if (s.subject_type === 'timesheet')
      assert.equal(s.approval_instance_ref, subject.approval_instance_ref);
    routed.add(String(s.subject_ref));
  }
  for (const t of known.timesheets.values())
    assert.equal(routed.has(String(t.id)), t.status !== 'draft', 'submitted timesheets are routed');
}
