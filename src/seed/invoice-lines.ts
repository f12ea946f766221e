/**
 * Writes the `invoice_lines` table: the second invoicing pass. It walks the same months and
 * workers in the same order as invoicing.ts, so the n-th invoice group met in a month is the n-th
 * invoice written there, and re-derives the same billable lines. A credit note's lines are the
 * negated copies of its invoice's first positive lines, written right after each of them, so the
 * credit note's total (computed in the first pass) equals the sum of its lines.
 */
import { activeIn, billLines, invoiceGroup, type BillLine } from './billing-sources.js';
import type { WorkspaceRun } from './context.js';
import { invoiceCreatedMs } from './invoice-fate.js';
import type { MonthBook } from './invoicing.js';
import type { Roster, WorkerPlan } from './plans.js';
import type { Row } from '../store/sink.js';

/** What a line says: the pay code or expense category it was built from, and the day. */
function describe(run: WorkspaceRun, line: BillLine): string {
  const date = run.cal.dates[line.day];
  return line.sourceType === 'timesheet'
    ? `${run.config.payCodes[line.pay].name} · ${date}`
    : `${run.config.expenseCategories[line.category]} · ${date}`;
}

function lineRow(
  run: WorkspaceRun,
  plan: WorkerPlan,
  line: BillLine,
  id: string,
  invoiceId: string,
  currency: string,
  createdAt: string,
  sign: 1 | -1,
): Row {
  const pay = line.pay >= 0 ? run.config.payCodes[line.pay] : null;
  return {
    id,
    workspace_id: run.ws.id,
    invoice_id: invoiceId,
    supplier_ref: plan.supplier.code,
    source_type: line.sourceType,
    source_ref: line.sourceId,
    worker_ref: plan.id,
    assignment_ref: plan.assignments[line.slot].id,
    org_unit_key: run.config.orgUnits[plan.orgUnit].key,
    pay_code: pay ? pay.code : null,
    band: pay ? pay.band : 'expense',
    description: describe(run, line),
    quantity: sign * line.quantity,
    unit: line.unit,
    rate_cents: line.rateCents,
    multiplier_bp: line.multiplierBp,
    amount_cents: sign * line.amountCents,
    currency,
    currency_mismatch: line.mismatch,
    created_at: createdAt,
  };
}

export async function writeInvoiceLines(
  run: WorkspaceRun,
  roster: Roster,
  books: MonthBook[],
): Promise<void> {
  const out = run.writer('invoice_lines');
  let seq = 1;
  for (const book of books) {
    const m = book.month;
    const seqOf = new Map<string, number>();
    const credited = new Map<number, number>();
    for (const plan of roster.workers) {
      if (!activeIn(run, plan, m)) continue;
      const lines = billLines(run, plan, m);
      if (lines.length === 0) continue;
      const group = invoiceGroup(run, plan);
      let invoiceSeq = seqOf.get(group.key);
      if (invoiceSeq === undefined) {
        invoiceSeq = seqOf.size;
        seqOf.set(group.key, invoiceSeq);
      }
      const invoiceId = run.id('inv', book.base + invoiceSeq);
      const createdAt = run.cal.stamp(invoiceCreatedMs(run, m, invoiceSeq));
      const credit = book.credits.get(invoiceSeq);
      for (const line of lines) {
        if (
          out.push(
            lineRow(run, plan, line, run.id('il', seq++), invoiceId, group.currency, createdAt, 1),
          )
        )
          await out.flush();
        if (credit === undefined || line.amountCents <= 0) continue;
        const done = credited.get(invoiceSeq) ?? 0;
        if (done >= credit.lines) continue;
        credited.set(invoiceSeq, done + 1);
        const row = lineRow(
          run,
          plan,
          line,
          run.id('il', seq++),
          credit.id,
          group.currency,
          run.cal.stamp(credit.createdMs),
          -1,
        );
        if (out.push(row)) await out.flush();
      }
    }
  }
  await run.finish(out);
}
