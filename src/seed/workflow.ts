/**
 * The submit-and-approve life of a timesheet or expense. Times are drawn first and the status is
 * whatever those times make true at asOf, so status and timestamps can never disagree (SPEC "Facts
 * tied to state"): not yet submitted → draft; submitted but not decided → submitted; else decided.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from './calendar.js';
import type { Rng } from './random.js';

export type ReviewStatus = 'draft' | 'submitted' | 'approved' | 'rejected';

export interface Review {
  status: ReviewStatus;
  submittedMs: number | null;
  decidedMs: number | null;
}

export interface ReviewRates {
  rejected: number;
  /** Submitted but never decided (an approver who left): stays pending forever. */
  stuck: number;
}

export function review(rng: Rng, asOfEndMs: number, readyMs: number, rates: ReviewRates): Review {
  const submittedMs = readyMs + rng.int(0, 2 * DAY_MS - 1);
  const decidedMs = submittedMs + rng.int(2 * HOUR_MS, 5 * DAY_MS);
  const rejected = rng.chance(rates.rejected);
  const stuck = rng.chance(rates.stuck);
  if (submittedMs > asOfEndMs) return { status: 'draft', submittedMs: null, decidedMs: null };
  if (stuck || decidedMs > asOfEndMs) return { status: 'submitted', submittedMs, decidedMs: null };
  return { status: rejected ? 'rejected' : 'approved', submittedMs, decidedMs };
}

export type StepState = 'pending' | 'approved' | 'rejected';

export interface ApprovalStep {
  step: number;
  state: StepState;
  createdMs: number;
  decidedMs: number | null;
}

/**
 * Approval routing of a submitted subject: one approver, or (30%) a manager then a second approver.
 * The last decided step carries the subject's own decision time; decidedAt is null iff pending.
 */
export function approvalSteps(rng: Rng, subject: Review, asOfEndMs: number): ApprovalStep[] {
  const submitted = subject.submittedMs;
  if (submitted === null) return [];
  const twoSteps = rng.chance(0.3);
  const firstDecision = submitted + rng.int(10 * MINUTE_MS, 2 * DAY_MS);
  const final: StepState = subject.status === 'rejected' ? 'rejected' : 'approved';
  if (!twoSteps) {
    if (subject.decidedMs === null)
      return [{ step: 1, state: 'pending', createdMs: submitted, decidedMs: null }];
    return [{ step: 1, state: final, createdMs: submitted, decidedMs: subject.decidedMs }];
  }
  if (subject.decidedMs !== null) {
    // The manager decided somewhere between submission and the final decision.
    const mid = submitted + Math.floor((subject.decidedMs - submitted) * (0.2 + 0.6 * rng.float()));
    return [
      { step: 1, state: 'approved', createdMs: submitted, decidedMs: mid },
      { step: 2, state: final, createdMs: mid, decidedMs: subject.decidedMs },
    ];
  }
  if (firstDecision > asOfEndMs)
    return [{ step: 1, state: 'pending', createdMs: submitted, decidedMs: null }];
  return [
    { step: 1, state: 'approved', createdMs: submitted, decidedMs: firstDecision },
    { step: 2, state: 'pending', createdMs: firstDecision, decidedMs: null },
  ];
}
