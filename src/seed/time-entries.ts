/**
 * The time entries of one timesheet. Pay codes follow a realistic mix (mostly REG; OT on long days
 * and Saturdays, DT on Sundays and very long days, HOL when working a public holiday). A correction
 * never edits an entry: it appends a reversal (negative quantity) and a restatement, both pointing
 * at the corrected original (SPEC "Time entry kind").
 */
import { HOUR_MS, MINUTE_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { GIANT_MIN_ENTRIES } from './edge-cases.js';
import { Stream, type Rng } from './random.js';
import { assignmentSlot, type WorkerPlan } from './plans.js';
import type { Sheet, SheetState } from './timesheet-plan.js';

/** Indexes into the program configuration's pay codes. */
export const REG = 0;
export const OT = 1;
export const DT = 2;
export const HOL = 3;

export type EntryKind = 'original' | 'reversal' | 'restatement';

export interface EntryPlan {
  day: number;
  pay: number;
  /** Minutes for hourly timesheets, else null. */
  minutes: number | null;
  /** Whole days or months for daily and monthly timesheets, else null. */
  units: number | null;
  kind: EntryKind;
  /** Local index of the corrected original; -1 for originals. */
  corrects: number;
  createdMs: number;
  /** Which of the worker's assignments the work was for. */
  slot: number;
}

function quarterHours(rng: Rng, lo: number, hi: number): number {
  return 15 * rng.int(lo, hi);
}

export function entriesOf(
  run: WorkspaceRun,
  plan: WorkerPlan,
  sheet: Sheet,
  state: SheetState,
): EntryPlan[] {
  const { cal } = run;
  const rng = run.rng(Stream.Entries, plan.index, sheet.key);
  const entries: EntryPlan[] = [];
  const first = Math.max(sheet.startDay, plan.startDay);
  const last = Math.min(sheet.endDay, plan.endDay);
  const hourly = plan.mode === 'hourly';
  // Edge-case workers never take leave, so their weeks always have entries.
  const leaveRate = plan.role === null ? 0.05 : 0;
  const add = (day: number, pay: number, quantity: number, createdMs: number): void => {
    entries.push({
      day,
      pay,
      minutes: hourly ? quantity : null,
      units: hourly ? null : quantity,
      kind: 'original',
      corrects: -1,
      createdMs: Math.max(createdMs, state.createdMs),
      slot: assignmentSlot(plan, day),
    });
  };
  if (sheet.giant) {
    // A punch-clock import: every weekday cut into ten-minute punches; past 8 h they are OT.
    let workdays = 0;
    for (let day = first; day <= last; day++) if (!cal.isWeekend(day)) workdays++;
    const punches = Math.ceil(GIANT_MIN_ENTRIES / workdays);
    for (let day = first; day <= last; day++) {
      if (cal.isWeekend(day)) continue;
      for (let p = 0; p < punches; p++) {
        add(
          day,
          p < 48 ? REG : OT,
          10,
          cal.dayMs(day) + 8 * HOUR_MS + p * 10 * MINUTE_MS + rng.int(0, 59_999),
        );
      }
    }
  } else if (plan.mode === 'monthly') {
    if (first <= last) add(first, REG, 1, cal.dayMs(last) + 17 * HOUR_MS + rng.int(0, 3 * HOUR_MS));
  } else {
    for (let day = first; day <= last; day++) {
      const evening = cal.dayMs(day) + 17 * HOUR_MS + rng.int(0, 3 * HOUR_MS);
      const weekday = cal.weekday[day];
      if (weekday === 6) {
        if (rng.chance(hourly ? 0.05 : 0.03))
          add(day, OT, hourly ? quarterHours(rng, 16, 32) : 1, evening);
      } else if (weekday === 0) {
        if (rng.chance(0.015)) add(day, DT, hourly ? quarterHours(rng, 16, 32) : 1, evening);
      } else if (cal.holiday[day] === 1) {
        if (rng.chance(0.3)) add(day, HOL, hourly ? 480 : 1, evening);
      } else if (!rng.chance(leaveRate)) {
        if (!hourly) {
          add(day, REG, 1, evening);
          continue;
        }
        add(day, REG, rng.chance(0.7) ? 480 : quarterHours(rng, 26, 32), evening);
        if (rng.chance(0.12)) add(day, OT, quarterHours(rng, 2, 12), evening + 1);
        if (rng.chance(0.004)) add(day, DT, quarterHours(rng, 4, 8), evening + 2);
      }
    }
  }
  if (state.correctionMs !== null && entries.length > 0)
    appendCorrection(rng, entries, state.correctionMs, hourly);
  return entries;
}

/** Reverses one original in full and restates it with the corrected quantity. */
function appendCorrection(rng: Rng, entries: EntryPlan[], at: number, hourly: boolean): void {
  const target = rng.int(0, entries.length - 1);
  const original = entries[target];
  entries.push({
    ...original,
    minutes: original.minutes === null ? null : -original.minutes,
    units: original.units === null ? null : -original.units,
    kind: 'reversal',
    corrects: target,
    createdMs: at,
  });
  const delta = rng.pick([-60, -30, 30, 60, 90]);
  entries.push({
    ...original,
    minutes: hourly && original.minutes !== null ? Math.max(15, original.minutes + delta) : null,
    kind: 'restatement',
    corrects: target,
    createdMs: at + 1,
  });
}
