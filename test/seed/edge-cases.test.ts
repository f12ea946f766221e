import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateSeed } from '../../src/seed/generate.js';
import type { Row } from '../../src/store/sink.js';
import {
  EMOJI,
  groupBy,
  INSTRUCTION,
  MemorySink,
  RTL,
  tinySeed,
  TINY,
  WORKSPACE_IDS,
  ZERO_WIDTH,
} from './memory-sink.js';

const hardText: [string, RegExp][] = [
  ['instruction-like', INSTRUCTION],
  ['emoji', EMOJI],
  ['right-to-left', RTL],
  ['zero-width', ZERO_WIDTH],
];

function assertHardText(rows: Row[], column: string, what: string): void {
  for (const [kind, pattern] of hardText) {
    assert.ok(
      rows.some((r) => pattern.test(String(r[column]))),
      `${what}: no ${kind} ${column}`,
    );
  }
}

/** DESIGN §7: the cases every workspace has at every scale. */
function checkWorkspace(sink: MemorySink, ws: string): void {
  const entries = sink.of('time_entries', ws);
  const lines = sink.of('invoice_lines', ws);
  const invoices = sink.of('invoices', ws);
  const workers = sink.of('workers', ws);

  const perSheet = groupBy(entries, 'timesheet_id');
  assert.ok(
    [...perSheet.values()].some((list) => list.length > 1000),
    'a timesheet with >1,000 entries',
  );
  const perInvoice = groupBy(lines, 'invoice_id');
  assert.ok(
    [...perInvoice.values()].some((list) => list.length > 500),
    'an invoice with >500 lines',
  );

  const byId = new Map(entries.map((e) => [e.id, e]));
  const corrected = [...perSheet.values()].filter((list) => {
    const reversal = list.find((e) => e.kind === 'reversal');
    const restatement = list.find(
      (e) => e.kind === 'restatement' && e.corrects_entry_id === reversal?.corrects_entry_id,
    );
    return (
      reversal !== undefined &&
      restatement !== undefined &&
      byId.get(String(reversal.corrects_entry_id))?.kind === 'original'
    );
  });
  assert.ok(corrected.length > 0, 'a corrected timesheet (reversal plus restatement)');

  const credit = invoices.filter((i) => i.type === 'credit_note');
  assert.ok(credit.length > 0, 'a credit note');
  for (const c of credit) {
    assert.ok(Number(c.total_cents) < 0, 'credit notes total negative');
    assert.ok(
      invoices.some((i) => i.id === c.corrects_invoice_ref && i.type === 'invoice'),
      'credit note corrects an invoice',
    );
  }
  assert.ok(
    invoices.some((i) => i.status === 'draft' && i.number === null),
    'a draft invoice',
  );
  assert.ok(
    invoices.some((i) => i.status === 'void'),
    'a void invoice',
  );
  assert.ok(
    invoices.some((i) => i.status === 'pushed') && invoices.some((i) => i.status === 'issued'),
    'issued and pushed',
  );
  assert.ok(
    lines.some((l) => l.source_type === 'expense'),
    'an expense line on an invoice',
  );

  const consolidated = invoices.filter(
    (i) => i.grouping_rule === 'consolidated' && i.type === 'invoice',
  );
  assert.ok(
    consolidated.some(
      (i) => new Set((perInvoice.get(String(i.id)) ?? []).map((l) => l.supplier_ref)).size >= 2,
    ),
    'a consolidated invoice with lines of two suppliers',
  );
  assert.ok(
    ['per_worker', 'per_org_unit'].every((rule) => invoices.some((i) => i.grouping_rule === rule)),
  );
  assert.ok(
    lines.some((l) => l.currency_mismatch === 1),
    'a currency-mismatch line',
  );
  assert.ok(
    entries.some((e) => e.captured_on_behalf === 1),
    'an on-behalf entry',
  );
  assert.ok(
    workers.some((w) => w.work_email === null),
    'a worker without email',
  );
  assert.ok(
    workers.some((w) => w.classification_status === null),
    'a worker without classification status',
  );

  assertHardText(workers, 'display_name', `${ws} workers`);
  assertHardText(lines, 'description', `${ws} invoice lines`);
  assertHardText(sink.of('suppliers', ws), 'name', `${ws} suppliers`);

  const days = new Set(entries.map((e) => e.work_date));
  assert.ok(days.size > 500, `time entries on ${days.size} distinct days`);

  const modes = new Set(sink.of('timesheets', ws).map((t) => t.entry_mode));
  assert.deepEqual([...modes].sort(), ['daily', 'hourly', 'monthly']);
  const currencies = new Set(sink.of('assignments', ws).map((a) => a.currency));
  assert.deepEqual([...currencies].sort(), ['EUR', 'GBP', 'USD']);
  const kinds = new Set(sink.of('saved_queries', ws).map((q) => q.kind));
  assert.deepEqual([...kinds].sort(), ['briefing', 'dashboard_tile', 'library']);
  const statuses = new Set(sink.of('timesheets', ws).map((t) => t.status));
  assert.deepEqual([...statuses].sort(), ['approved', 'draft', 'rejected', 'submitted']);
}

describe('seed edge cases at tiny scale', () => {
  for (const ws of WORKSPACE_IDS) {
    it(`are all present in ${ws}`, async () => {
      const { sink } = await tinySeed();
      checkWorkspace(sink, ws);
    });
  }

  it('are present for other seeds and mid-month or leap-day asOf dates', async () => {
    for (const options of [
      { ...TINY, seed: 12345, asOf: '2024-02-29' },
      { ...TINY, seed: 3, asOf: '2025-11-16' },
    ]) {
      const sink = new MemorySink();
      await generateSeed(options, sink);
      for (const ws of WORKSPACE_IDS) checkWorkspace(sink, ws);
    }
  });

  it('have realistic shares: corrections, credit notes, pay codes', async () => {
    const { sink } = await tinySeed();
    const sheets = sink.table('timesheets');
    const approved = new Set(sheets.filter((t) => t.status === 'approved').map((t) => t.id));
    const corrected = new Set(
      sink
        .table('time_entries')
        .filter((e) => e.kind === 'reversal')
        .map((e) => e.timesheet_id),
    );
    const correctedShare = [...corrected].filter((id) => approved.has(id)).length / approved.size;
    assert.ok(
      correctedShare >= 0.015 && correctedShare <= 0.05,
      `corrected share ${correctedShare}`,
    );
    const invoices = sink.table('invoices');
    const creditShare = invoices.filter((i) => i.type === 'credit_note').length / invoices.length;
    assert.ok(creditShare >= 0.005 && creditShare <= 0.05, `credit-note share ${creditShare}`);
    const payCodes = groupBy(sink.table('time_entries'), 'pay_code');
    const reg = payCodes.get('REG')?.length ?? 0;
    assert.ok(reg / sink.table('time_entries').length > 0.7, 'mostly REG');
    for (const code of ['OT', 'DT', 'HOL']) assert.ok(payCodes.has(code), `some ${code}`);
  });
});
