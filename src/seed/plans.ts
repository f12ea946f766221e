/**
 * The shapes of the roster's plans (see roster.ts) and what every pass derives from them, apart
 * from the code that builds them, so that the passes and the roster need not import each other.
 */
import type { EntryMode, SpecialRole } from './edge-cases.js';
import type { SupplierPlan } from './supplier-plan.js';

export type { SupplierPlan } from './supplier-plan.js';

export interface AssignmentPlan {
  id: string;
  startDay: number;
  endDay: number;
  /** Still running at asOf: end_date NULL. */
  open: boolean;
  jobCode: number;
  site: number;
  /** Per hour, day or month according to the worker's entry mode. */
  rateCents: number;
  createdMs: number;
}

export interface WorkerPlan {
  index: number;
  id: string;
  supplier: SupplierPlan;
  orgUnit: number;
  mode: EntryMode;
  startDay: number;
  endDay: number;
  open: boolean;
  assignments: AssignmentPlan[];
  role: SpecialRole | null;
  createdMs: number;
  /** Global sequence of this worker's first timesheet and expense (ids are base + local index). */
  tsBase: number;
  expBase: number;
}

export interface Roster {
  suppliers: SupplierPlan[];
  workers: WorkerPlan[];
}

/** The assignment a worker was on at `day`. */
export function assignmentSlot(plan: WorkerPlan, day: number): number {
  return plan.assignments.length > 1 && day >= plan.assignments[1].startDay ? 1 : 0;
}
