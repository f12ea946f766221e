/**
 * Writes `approval_statuses`: one row per approval step of every submitted timesheet and expense
 * (drafts have no routing yet). The rows repeat the subject's worker and supplier so worker and
 * Billing Entity tokens can be filtered on them directly.
 */
import type { WorkspaceRun } from './context.js';
import { expensesOf } from './expenses.js';
import { Stream } from './random.js';
import type { Roster, WorkerPlan } from './plans.js';
import { approvalInstanceRef } from './time.js';
import { sheetsOf, sheetState } from './timesheet-plan.js';
import { approvalSteps, type ApprovalStep, type Review } from './workflow.js';

/** Expense streams sit above every timesheet key (weeks < 1e6, months 1e6/2e6 + m). */
const EXPENSE_KEY_BASE = 3_000_000;

export async function writeApprovalStatuses(run: WorkspaceRun, roster: Roster): Promise<void> {
  const { cal } = run;
  const out = run.writer('approval_statuses');
  let seq = 1;
  const write = async (
    plan: WorkerPlan,
    subjectType: string,
    subjectId: string,
    steps: ApprovalStep[],
  ): Promise<void> => {
    for (const s of steps) {
      const full = out.push({
        id: run.id('apr', seq++),
        workspace_id: run.ws.id,
        approval_instance_ref: approvalInstanceRef(subjectId),
        subject_type: subjectType,
        subject_ref: subjectId,
        worker_id: plan.id,
        supplier_ref: plan.supplier.code,
        step: s.step,
        state: s.state,
        decided_at: s.decidedMs === null ? null : cal.stamp(s.decidedMs),
        created_at: cal.stamp(s.createdMs),
        updated_at: cal.stamp(s.decidedMs ?? s.createdMs),
      });
      if (full) await out.flush();
    }
  };
  const stepsOf = (plan: WorkerPlan, key: number, subject: Review): ApprovalStep[] =>
    approvalSteps(run.rng(Stream.Approvals, plan.index, key), subject, cal.asOfEndMs);

  for (const plan of roster.workers) {
    for (const sheet of sheetsOf(run, plan)) {
      const s = sheetState(run, plan, sheet);
      if (s.submittedMs === null) continue;
      const subject: Review = {
        status: s.status,
        submittedMs: s.submittedMs,
        decidedMs: s.decidedMs,
      };
      await write(plan, 'timesheet', s.id, stepsOf(plan, sheet.key, subject));
    }
    for (const e of expensesOf(run, plan)) {
      if (e.review.submittedMs === null) continue;
      const id = run.id('exp', plan.expBase + e.local);
      await write(plan, 'expense', id, stepsOf(plan, EXPENSE_KEY_BASE + e.local, e.review));
    }
  }
  await run.finish(out);
}
