/**
 * Which timesheets a worker has and what happened to each. Hourly and daily workers fill one
 * timesheet per split week, monthly workers one per month, and the giant worker one month-long
 * timesheet in the giant month. A timesheet's local index `k` is arithmetic on period indexes, so
 * invoicing can address "the timesheets of worker w in month m" without listing the others.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { CORRECTION_DAY_OFFSET, ON_BEHALF_DAY_OFFSET, PENDING_DAY_OFFSET } from './edge-cases.js';
import { Stream } from './random.js';
import type { WorkerPlan } from './plans.js';
import { review, type ReviewStatus } from './workflow.js';

export interface Sheet {
  /** Index among the worker's timesheets (id = tsBase + k). */
  k: number;
  startDay: number;
  endDay: number;
  month: number;
  /** Random-stream coordinate, distinct per period kind. */
  key: number;
  giant: boolean;
}

export interface SheetState {
  id: string;
  status: ReviewStatus;
  createdMs: number;
  submittedMs: number | null;
  decidedMs: number | null;
  /** When the reversal and restatement were added; null when not corrected. */
  correctionMs: number | null;
  onBehalf: boolean;
  updatedMs: number;
}

/** Week indexes the giant month's split weeks collapse from; null for every other worker. */
function giantWeeks(run: WorkspaceRun, plan: WorkerPlan): [number, number] | null {
  if (plan.role !== 'giant') return null;
  const month = run.cal.months[run.edges.giant];
  return [run.cal.dayWeek[month.firstDay], run.cal.dayWeek[month.lastDay]];
}

export function sheetCount(run: WorkspaceRun, plan: WorkerPlan): number {
  const { cal } = run;
  if (plan.mode === 'monthly') return cal.dayMonth[plan.endDay] - cal.dayMonth[plan.startDay] + 1;
  const giant = giantWeeks(run, plan);
  const weeks = cal.dayWeek[plan.endDay] - cal.dayWeek[plan.startDay] + 1;
  return giant ? weeks - (giant[1] - giant[0]) : weeks;
}

export function sheetsInMonth(run: WorkspaceRun, plan: WorkerPlan, m: number): Sheet[] {
  const { cal } = run;
  const month = cal.months[m];
  if (month.lastDay < plan.startDay || month.firstDay > plan.endDay) return [];
  if (plan.mode === 'monthly') {
    const k = m - cal.dayMonth[plan.startDay];
    return [
      {
        k,
        startDay: month.firstDay,
        endDay: month.lastDay,
        month: m,
        key: 1_000_000 + m,
        giant: false,
      },
    ];
  }
  const p0 = cal.dayWeek[plan.startDay];
  const giant = giantWeeks(run, plan);
  if (giant && m === run.edges.giant) {
    return [
      {
        k: giant[0] - p0,
        startDay: month.firstDay,
        endDay: month.lastDay,
        month: m,
        key: 2_000_000 + m,
        giant: true,
      },
    ];
  }
  const from = Math.max(p0, cal.dayWeek[month.firstDay]);
  const to = Math.min(cal.dayWeek[plan.endDay], cal.dayWeek[month.lastDay]);
  const sheets: Sheet[] = [];
  for (let p = from; p <= to; p++) {
    const week = cal.weeks[p];
    const k = p - p0 - (giant && p > giant[1] ? giant[1] - giant[0] : 0);
    sheets.push({
      k,
      startDay: week.startDay,
      endDay: week.endDay,
      month: m,
      key: p,
      giant: false,
    });
  }
  return sheets;
}

/** All of a worker's timesheets, oldest first. */
export function sheetsOf(run: WorkspaceRun, plan: WorkerPlan): Sheet[] {
  const { cal } = run;
  const sheets: Sheet[] = [];
  for (let m = cal.dayMonth[plan.startDay]; m <= cal.dayMonth[plan.endDay]; m++) {
    for (const s of sheetsInMonth(run, plan, m)) sheets.push(s);
  }
  return sheets;
}

function contains(sheet: Sheet, day: number): boolean {
  return sheet.startDay <= day && day <= sheet.endDay;
}

export function sheetState(run: WorkspaceRun, plan: WorkerPlan, sheet: Sheet): SheetState {
  const { cal, edges } = run;
  const rng = run.rng(Stream.Timesheet, plan.index, sheet.key);
  // Opened on the first morning of the period (never before the worker's record exists).
  const createdMs = Math.max(
    cal.dayMs(sheet.startDay) + 7 * HOUR_MS + rng.int(0, 4 * HOUR_MS),
    plan.createdMs + HOUR_MS + rng.int(0, 999),
  );
  const readyMs = cal.dayMs(sheet.endDay) + DAY_MS + 8 * HOUR_MS;
  const giantMonth = cal.months[edges.giant];
  // Edge-case workers are never rejected or stuck at random; two of them are on purpose, once, so
  // every workspace has rejected and long-pending timesheets.
  const marked =
    sheet.month === edges.giant && contains(sheet, giantMonth.firstDay + PENDING_DAY_OFFSET);
  const rates =
    plan.role === null
      ? { rejected: 0.02, stuck: 0.003 }
      : {
          rejected: plan.role === 'steady' && marked ? 1 : 0,
          stuck: plan.role === 'daily' && marked ? 1 : 0,
        };
  const r = review(rng, cal.asOfEndMs, readyMs, rates);
  const isVeteranGiantMonth = plan.role === 'veteran' && sheet.month === edges.giant;
  // 2-4% of approved timesheets get corrected; the veteran's always in the giant month.
  const wantsCorrection =
    rng.chance(0.03) ||
    (isVeteranGiantMonth && contains(sheet, giantMonth.firstDay + CORRECTION_DAY_OFFSET));
  const onBehalf =
    rng.chance(0.03) ||
    (isVeteranGiantMonth && contains(sheet, giantMonth.firstDay + ON_BEHALF_DAY_OFFSET));
  let correctionMs: number | null = null;
  if (r.status === 'approved' && wantsCorrection && !sheet.giant && r.decidedMs !== null) {
    const at = r.decidedMs + rng.int(6 * HOUR_MS, 2 * DAY_MS) + rng.int(0, 59) * MINUTE_MS;
    correctionMs = at <= cal.asOfEndMs ? at : null;
  }
  return {
    id: run.id('ts', plan.tsBase + sheet.k),
    status: r.status,
    createdMs,
    submittedMs: r.submittedMs,
    decidedMs: r.decidedMs,
    correctionMs,
    onBehalf,
    updatedMs: Math.max(createdMs, r.submittedMs ?? 0, r.decidedMs ?? 0, correctionMs ?? 0),
  };
}
