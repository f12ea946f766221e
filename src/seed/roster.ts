/**
 * The roster: suppliers and workers as small numeric plans (who works for whom, when, in which
 * mode, at what rate). Plans are what every later pass re-derives timesheets, entries, expenses
 * and invoices from; the text of the rows (names, emails) is only made when the rows are written.
 * Sequence bases let any pass compute a timesheet's or expense's id without replaying the others.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { SPECIAL_WORKERS, type EntryMode } from './edge-cases.js';
import { expensesOf } from './expenses.js';
import { Stream, type Rng } from './random.js';
import type { AssignmentPlan, Roster, WorkerPlan } from './plans.js';
import { planSupplier, type SupplierPlan } from './supplier-plan.js';
import { sheetCount } from './timesheet-plan.js';

const MODES: EntryMode[] = ['hourly', 'daily', 'monthly'];
/** Bill rates are per hour, day (8 h) or month (168 h) after the worker's entry mode. */
const HOURS_PER_UNIT: Record<EntryMode, number> = { hourly: 1, daily: 8, monthly: 168 };

/** One assignment for the engagement, or (30% of long ones) a second one taking over part-way. */
function planAssignments(
  run: WorkspaceRun,
  rng: Rng,
  mode: EntryMode,
  startDay: number,
  endDay: number,
  workerCreatedMs: number,
): AssignmentPlan[] {
  const { cal, config } = run;
  const hourly = rng.int(140, 480) * 25;
  const open = endDay === cal.days - 1;
  const first: AssignmentPlan = {
    id: '',
    startDay,
    endDay,
    open,
    jobCode: rng.int(0, config.jobCodes.length - 1),
    site: rng.int(0, config.sites.length - 1),
    rateCents: hourly * HOURS_PER_UNIT[mode],
    createdMs: workerCreatedMs + rng.int(1, 60) * MINUTE_MS,
  };
  const length = endDay - startDay + 1;
  if (length < 140 || !rng.chance(0.3)) return [first];
  // The new role or site comes with a small raise.
  const split = startDay + Math.floor(length * (0.3 + 0.4 * rng.float()));
  const raised = Math.round((hourly * (1.03 + 0.07 * rng.float())) / 25) * 25;
  const second: AssignmentPlan = {
    id: '',
    startDay: split,
    endDay,
    open,
    jobCode: rng.int(0, config.jobCodes.length - 1),
    site: rng.int(0, config.sites.length - 1),
    rateCents: raised * HOURS_PER_UNIT[mode],
    createdMs: Math.max(
      workerCreatedMs,
      cal.dayMs(split) - 5 * DAY_MS + rng.int(9 * HOUR_MS, 17 * HOUR_MS),
    ),
  };
  return [{ ...first, endDay: split - 1, open: false }, second];
}

function planWorker(
  run: WorkspaceRun,
  index: number,
  suppliers: SupplierPlan[],
  weights: number[],
): WorkerPlan {
  const { cal } = run;
  const rng = run.rng(Stream.Worker, index);
  const special = SPECIAL_WORKERS[index];
  let startDay = 0;
  let endDay = cal.days - 1;
  if (!special) {
    // Most engagements last weeks or months; a few run for years.
    const bucket = rng.weighted([0.7, 0.25, 0.05]);
    const weeks = bucket === 0 ? rng.int(2, 20) : bucket === 1 ? rng.int(20, 52) : rng.int(52, 156);
    startDay = rng.int(0, cal.days - 7);
    endDay = Math.min(cal.days - 1, startDay + weeks * 7 - 1);
  }
  const mode = special?.mode ?? MODES[rng.weighted([0.85, 0.1, 0.05])];
  const supplier = suppliers[special?.supplier ?? rng.weighted(weights)];
  const createdMs = special
    ? cal.startMs + 2 * HOUR_MS + index * MINUTE_MS + rng.int(0, 999)
    : Math.max(
        cal.startMs + 2 * HOUR_MS,
        cal.dayMs(startDay) - rng.int(1, 20) * DAY_MS + rng.int(8 * HOUR_MS, 18 * HOUR_MS),
      );
  const assignments = planAssignments(run, rng, mode, startDay, endDay, createdMs);
  return {
    index,
    id: run.id('wkr', index + 1),
    supplier,
    orgUnit: special
      ? index % run.config.orgUnits.length
      : rng.int(0, run.config.orgUnits.length - 1),
    mode,
    startDay,
    endDay,
    open: endDay === cal.days - 1,
    assignments,
    role: special?.role ?? null,
    createdMs,
    tsBase: 0,
    expBase: 0,
  };
}

export function buildRoster(run: WorkspaceRun): Roster {
  const suppliers: SupplierPlan[] = [];
  for (let i = 0; i < run.scale.suppliers; i++) suppliers.push(planSupplier(run, i));
  // A long tail: a few large suppliers place most workers, as in real programs.
  const weights = suppliers.map((_, i) => 1 / (i + 2));
  const workers: WorkerPlan[] = [];
  let asgSeq = 1;
  let tsSeq = 1;
  let expSeq = 1;
  for (let i = 0; i < run.workerCount; i++) {
    const plan = planWorker(run, i, suppliers, weights);
    for (const a of plan.assignments) a.id = run.id('asg', asgSeq++);
    plan.tsBase = tsSeq;
    tsSeq += sheetCount(run, plan);
    plan.expBase = expSeq;
    expSeq += expensesOf(run, plan).length;
    workers.push(plan);
  }
  return { suppliers, workers };
}
