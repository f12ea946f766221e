/**
 * Writes the `timesheets` table, then the `time_entries` table, each by one walk over the roster.
 * The two walks re-derive the same timesheet states (derivation is cheaper than keeping them) so
 * each table is written whole before the next, as the sink contract asks.
 */
import type { WorkspaceRun } from './context.js';
import type { Roster } from './plans.js';
import { entriesOf } from './time-entries.js';
import { sheetsOf, sheetState } from './timesheet-plan.js';

export async function writeTimesheets(run: WorkspaceRun, roster: Roster): Promise<void> {
  const { cal, ws } = run;
  const out = run.writer('timesheets');
  for (const plan of roster.workers) {
    for (const sheet of sheetsOf(run, plan)) {
      const s = sheetState(run, plan, sheet);
      const full = out.push({
        id: s.id,
        workspace_id: ws.id,
        worker_id: plan.id,
        // The giant timesheet is an hourly punch import spanning a month.
        entry_mode: plan.mode,
        period_start: cal.dates[sheet.startDay],
        period_end: cal.dates[sheet.endDay],
        status: s.status,
        config_version: 1,
        approval_instance_ref: s.submittedMs === null ? null : approvalInstanceRef(s.id),
        submitted_at: s.submittedMs === null ? null : cal.stamp(s.submittedMs),
        decided_at: s.decidedMs === null ? null : cal.stamp(s.decidedMs),
        created_at: cal.stamp(s.createdMs),
        updated_at: cal.stamp(s.updatedMs),
      });
      if (full) await out.flush();
    }
  }
  await run.finish(out);
}

/** The approval routing of a submitted subject: one instance per timesheet or expense. */
export function approvalInstanceRef(subjectId: string): string {
  return `ain_${subjectId}`;
}

export async function writeTimeEntries(run: WorkspaceRun, roster: Roster): Promise<void> {
  const { cal, ws, config } = run;
  const out = run.writer('time_entries');
  let seq = 1;
  for (const plan of roster.workers) {
    const supplierRef = plan.supplier.code;
    for (const sheet of sheetsOf(run, plan)) {
      const s = sheetState(run, plan, sheet);
      const entries = entriesOf(run, plan, sheet, s);
      const firstSeq = seq;
      for (const e of entries) {
        const full = out.push({
          id: run.id('te', seq++),
          workspace_id: ws.id,
          timesheet_id: s.id,
          assignment_id: plan.assignments[e.slot].id,
          worker_id: plan.id,
          supplier_ref: supplierRef,
          work_date: cal.dates[e.day],
          pay_code: config.payCodes[e.pay].code,
          quantity_minutes: e.minutes,
          quantity_units: e.units,
          kind: e.kind,
          corrects_entry_id: e.corrects < 0 ? null : run.id('te', firstSeq + e.corrects),
          captured_on_behalf: s.onBehalf ? 1 : 0,
          created_at: cal.stamp(e.createdMs),
        });
        if (full) await out.flush();
      }
    }
  }
  await run.finish(out);
}
