/**
 * Expenses: roughly one claim per worker every three months, mostly ordinary categories, now and
 * then in another currency than the assignment's (which invoicing flags as a currency mismatch).
 * The veteran files the four unusual-category claims of the giant month (edge-cases.ts).
 */
import { DAY_MS, HOUR_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { CURRENCIES, EXPENSE_DAY_OFFSETS } from './edge-cases.js';
import { Stream, type Rng } from './random.js';
import { assignmentSlot, type Roster, type WorkerPlan } from './plans.js';
import { review, type Review } from './workflow.js';
import { ORDINARY_CATEGORY_COUNT, UNUSUAL_CATEGORY_FIRST } from './workspaces.js';

export interface ExpensePlan {
  /** Index among the worker's expenses (id = expBase + local). */
  local: number;
  day: number;
  category: number;
  amountCents: number;
  currency: string;
  slot: number;
  review: Review;
  createdMs: number;
  updatedMs: number;
}

function otherCurrency(rng: Rng, own: string): string {
  return rng.pick(CURRENCIES.filter((c) => c !== own));
}

export function expensesOf(run: WorkspaceRun, plan: WorkerPlan): ExpensePlan[] {
  const { cal } = run;
  const rng = run.rng(Stream.Expenses, plan.index);
  const own = plan.supplier.currency;
  const list: ExpensePlan[] = [];
  const claim = (
    day: number,
    category: number,
    amountCents: number,
    currency: string,
    forced: boolean,
  ): void => {
    const createdMs = cal.dayMs(day) + rng.int(0, 3) * DAY_MS + rng.int(9 * HOUR_MS, 20 * HOUR_MS);
    const rates = forced ? { rejected: 0, stuck: 0 } : { rejected: 0.03, stuck: 0.005 };
    const r = review(rng, cal.asOfEndMs, createdMs + HOUR_MS, rates);
    // Claims filed after asOf do not exist yet.
    if (createdMs > cal.asOfEndMs) return;
    list.push({
      local: list.length,
      day,
      category,
      amountCents,
      currency,
      slot: assignmentSlot(plan, day),
      review: r,
      createdMs,
      updatedMs: Math.max(createdMs, r.submittedMs ?? 0, r.decidedMs ?? 0),
    });
  };
  // One chance per four weeks of engagement.
  for (let block = plan.startDay; block <= plan.endDay; block += 28) {
    if (!rng.chance(0.3)) continue;
    const day = Math.min(plan.endDay, block + rng.int(0, 27));
    const category = rng.chance(0.02)
      ? UNUSUAL_CATEGORY_FIRST + rng.int(0, 3)
      : rng.int(0, ORDINARY_CATEGORY_COUNT - 1);
    const amount = rng.int(8, 600) * 100 + rng.int(0, 99);
    claim(day, category, amount, rng.chance(0.03) ? otherCurrency(rng, own) : own, false);
  }
  if (plan.role === 'veteran') {
    const firstDay = cal.months[run.edges.giant].firstDay;
    EXPENSE_DAY_OFFSETS.forEach((offset, i) => {
      // The first one is recorded in another currency: a guaranteed currency-mismatch line.
      const currency = i === 0 ? otherCurrency(rng, own) : own;
      claim(firstDay + offset, UNUSUAL_CATEGORY_FIRST + i, 4_250 + 1_000 * i, currency, true);
    });
  }
  return list;
}

export async function writeExpenses(run: WorkspaceRun, roster: Roster): Promise<void> {
  const { cal, ws, config } = run;
  const out = run.writer('expenses');
  for (const plan of roster.workers) {
    for (const e of expensesOf(run, plan)) {
      const full = out.push({
        id: run.id('exp', plan.expBase + e.local),
        workspace_id: ws.id,
        worker_id: plan.id,
        assignment_id: plan.assignments[e.slot].id,
        supplier_ref: plan.supplier.code,
        category: config.expenseCategories[e.category],
        incurred_on: cal.dates[e.day],
        amount_cents: e.amountCents,
        currency: e.currency,
        status: e.review.status,
        created_at: cal.stamp(e.createdMs),
        updated_at: cal.stamp(e.updatedMs),
      });
      if (full) await out.flush();
    }
  }
  await run.finish(out);
}
