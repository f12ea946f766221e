/**
 * Writes `suppliers`, `workers` and `assignments` from the roster plans, adding the people-typed
 * text (names, emails, classification statuses) only here, where rows are made.
 */
import { DAY_MS, HOUR_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { SPECIAL_WORKERS } from './edge-cases.js';
import {
  asciiSlug,
  CLASSIFICATION_STATUSES,
  personName,
  unusualPersonName,
} from './people-text.js';
import { Stream } from './random.js';
import type { Roster, WorkerPlan } from './plans.js';

export async function writeSuppliers(run: WorkspaceRun, roster: Roster): Promise<void> {
  const out = run.writer('suppliers');
  for (const s of roster.suppliers) {
    const full = out.push({
      id: s.id,
      workspace_id: run.ws.id,
      code: s.code,
      name: s.name,
      status: s.active ? 'active' : 'inactive',
      created_at: run.cal.stamp(s.createdMs),
      updated_at: run.cal.stamp(s.active ? s.createdMs : s.createdMs + 400 * DAY_MS),
    });
    if (full) await out.flush();
  }
  await run.finish(out);
}

const WORKER_TYPES = ['requisition_based', 'profile_only', 'sow_based', 'direct_sourced'];

/** Onboarding follows the engagement: just started → invited/onboarding, ended → offboarded. */
function onboardingState(run: WorkspaceRun, plan: WorkerPlan): string {
  if (!plan.open) return 'offboarded';
  const sinceStart = run.cal.days - 1 - plan.startDay;
  if (plan.role === null && sinceStart < 3) return 'invited';
  if (plan.role === null && sinceStart < 14) return 'onboarding';
  return 'active';
}

export async function writeWorkers(run: WorkspaceRun, roster: Roster): Promise<void> {
  const { cal } = run;
  const out = run.writer('workers');
  for (const plan of roster.workers) {
    const rng = run.rng(Stream.WorkerText, plan.index);
    const special = SPECIAL_WORKERS[plan.index];
    const name = special ? unusualPersonName(special.nameKind, rng) : personName(rng, 0.03);
    const noEmail = special ? !special.hasEmail : rng.chance(0.05);
    // First and last name only: an instruction-like name must not make an instruction-like address.
    const local = asciiSlug(name, '.').split('.').slice(0, 2).join('.') || 'worker';
    const email = noEmail
      ? null
      : `${local}.${plan.index + 1}@${asciiSlug(plan.supplier.plainName, '-')}.example`;
    const state = onboardingState(run, plan);
    const updatedMs =
      state === 'offboarded'
        ? cal.dayMs(plan.endDay) + 18 * HOUR_MS + rng.int(0, HOUR_MS)
        : plan.createdMs + rng.int(0, 30) * DAY_MS + rng.int(0, HOUR_MS);
    const full = out.push({
      id: plan.id,
      workspace_id: run.ws.id,
      supplier_ref: plan.supplier.code,
      org_unit_key: run.config.orgUnits[plan.orgUnit].key,
      type: WORKER_TYPES[rng.weighted([0.7, 0.15, 0.1, 0.05])],
      display_name: name,
      work_email: email,
      // Recorded by the customer's team; often left blank.
      classification_status: rng.chance(0.15) ? null : rng.pick(CLASSIFICATION_STATUSES),
      tenure_start: rng.chance(0.05)
        ? null
        : cal.dates[Math.max(0, plan.startDay - rng.int(0, 60))],
      onboarding_state: state,
      status: state === 'offboarded' ? 'inactive' : 'active',
      created_at: cal.stamp(plan.createdMs),
      updated_at: cal.stamp(Math.max(plan.createdMs, updatedMs)),
    });
    if (full) await out.flush();
  }
  await run.finish(out);
}

export async function writeAssignments(run: WorkspaceRun, roster: Roster): Promise<void> {
  const { cal, config } = run;
  const out = run.writer('assignments');
  for (const plan of roster.workers) {
    for (const a of plan.assignments) {
      const endedMs = cal.dayMs(a.endDay) + 18 * HOUR_MS;
      const full = out.push({
        id: a.id,
        workspace_id: run.ws.id,
        worker_id: plan.id,
        supplier_ref: plan.supplier.code,
        job_code: config.jobCodes[a.jobCode].key,
        site_key: config.sites[a.site].key,
        org_unit_key: config.orgUnits[plan.orgUnit].key,
        currency: plan.supplier.currency,
        bill_rate_cents: a.rateCents,
        start_date: cal.dates[a.startDay],
        end_date: a.open ? null : cal.dates[a.endDay],
        status: a.open ? 'active' : 'ended',
        created_at: cal.stamp(a.createdMs),
        updated_at: cal.stamp(a.open ? a.createdMs : Math.max(a.createdMs, endedMs)),
      });
      if (full) await out.flush();
    }
  }
  await run.finish(out);
}
