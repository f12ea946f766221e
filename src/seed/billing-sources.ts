/**
 * What a month's invoices are made of: for one worker, every time entry of its approved timesheets
 * of the month (one line per entry, so reversals bill negative) and every approved expense
 * incurred in the month. Both invoicing passes call this and get the same lines in the same order.
 * Also which invoice a worker's lines go to, from the supplier's grouping rule.
 */
import type { WorkspaceRun } from './context.js';
import type { GroupingRule } from './edge-cases.js';
import { expensesOf } from './expenses.js';
import type { SupplierPlan, WorkerPlan } from './plans.js';
import { entriesOf } from './time-entries.js';
import { sheetsInMonth, sheetState } from './timesheet-plan.js';

export interface BillLine {
  sourceType: 'timesheet' | 'expense';
  sourceId: string;
  slot: number;
  /** Pay code index; -1 on expense lines. */
  pay: number;
  /** Expense category index; -1 on timesheet lines. */
  category: number;
  day: number;
  quantity: number;
  unit: 'minutes' | 'units' | 'expense';
  rateCents: number;
  multiplierBp: number | null;
  amountCents: number;
  mismatch: 0 | 1;
}

/**
 * amount = quantity × rate × multiplier, rounded half away from zero on the magnitude so that a
 * reversal bills exactly the negative of its original.
 */
export function lineAmount(
  quantity: number,
  unit: 'minutes' | 'units',
  rateCents: number,
  bp: number,
): number {
  const divisor = unit === 'minutes' ? 600_000 : 10_000;
  const magnitude = Math.round((Math.abs(quantity) * rateCents * bp) / divisor);
  return quantity < 0 ? -magnitude : magnitude;
}

export function billLines(run: WorkspaceRun, plan: WorkerPlan, m: number): BillLine[] {
  const lines: BillLine[] = [];
  const payCodes = run.config.payCodes;
  for (const sheet of sheetsInMonth(run, plan, m)) {
    const state = sheetState(run, plan, sheet);
    if (state.status !== 'approved') continue;
    for (const e of entriesOf(run, plan, sheet, state)) {
      const unit = e.minutes !== null ? 'minutes' : 'units';
      const quantity = e.minutes ?? (e.units as number);
      const rateCents = plan.assignments[e.slot].rateCents;
      const bp = payCodes[e.pay].multiplierBp;
      lines.push({
        sourceType: 'timesheet',
        sourceId: state.id,
        slot: e.slot,
        pay: e.pay,
        category: -1,
        day: e.day,
        quantity,
        unit,
        rateCents,
        multiplierBp: bp,
        amountCents: lineAmount(quantity, unit, rateCents, bp),
        mismatch: 0,
      });
    }
  }
  const monthOf = run.cal.dayMonth;
  for (const x of expensesOf(run, plan)) {
    if (monthOf[x.day] !== m || x.review.status !== 'approved') continue;
    lines.push({
      sourceType: 'expense',
      sourceId: run.id('exp', plan.expBase + x.local),
      slot: x.slot,
      pay: -1,
      category: x.category,
      day: x.day,
      quantity: 1,
      unit: 'expense',
      rateCents: x.amountCents,
      multiplierBp: null,
      amountCents: x.amountCents,
      mismatch: x.currency !== plan.supplier.currency ? 1 : 0,
    });
  }
  return lines;
}

export interface InvoiceGroup {
  /** Map key; unique per invoice within a month. */
  key: string;
  rule: GroupingRule;
  /** NULL on consolidated invoices, which span suppliers. */
  supplier: SupplierPlan | null;
  groupKey: string;
  currency: string;
  /** The worker of a per-worker invoice (edge cases single out the steady worker's). */
  worker: WorkerPlan | null;
}

/** The invoice a worker's lines of a month belong to (one currency per supplier, so per worker). */
export function invoiceGroup(run: WorkspaceRun, plan: WorkerPlan): InvoiceGroup {
  const s = plan.supplier;
  const currency = s.currency;
  switch (s.rule) {
    case 'consolidated':
      return {
        key: `C:${currency}`,
        rule: s.rule,
        supplier: null,
        groupKey: `consolidated/${currency}`,
        currency,
        worker: null,
      };
    case 'per_org_unit': {
      const ou = run.config.orgUnits[plan.orgUnit].key;
      return {
        key: `O:${s.index}:${ou}`,
        rule: s.rule,
        supplier: s,
        groupKey: ou,
        currency,
        worker: null,
      };
    }
    case 'per_worker':
      return {
        key: `W:${plan.index}`,
        rule: s.rule,
        supplier: s,
        groupKey: plan.id,
        currency,
        worker: plan,
      };
  }
}

/** Workers engaged at some point of month m. */
export function activeIn(run: WorkspaceRun, plan: WorkerPlan, m: number): boolean {
  const month = run.cal.months[m];
  return plan.startDay <= month.lastDay && plan.endDay >= month.firstDay;
}
