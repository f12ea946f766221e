import { defineRecord } from './record.js';

/** Record shapes of SPEC "Resources and their fields" and DESIGN §4.7, each declared once. */

/**
 * Enumerations that report dimensions and saved-query filters also use (src/semantic/views.ts):
 * named here once, beside the fields they enumerate.
 */
export const ONBOARDING_STATES = ['invited', 'onboarding', 'active', 'offboarded'] as const;
export const WORKER_STATUSES = ['active', 'inactive'] as const;
export const ENTRY_MODES = ['hourly', 'daily', 'monthly'] as const;
export const TIMESHEET_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;
export const INVOICE_TYPES = ['invoice', 'credit_note'] as const;
export const INVOICE_STATUSES = ['draft', 'issued', 'pushed', 'void'] as const;
export const GROUPING_RULES = ['per_worker', 'per_org_unit', 'consolidated'] as const;
export const LINE_SOURCE_TYPES = ['timesheet', 'expense'] as const;
export const PAY_BANDS = ['regular', 'overtime', 'doubletime', 'flat', 'expense'] as const;
export const EXPENSE_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;
export const APPROVAL_STATES = ['pending', 'approved', 'rejected'] as const;
/** SPEC "Saved query item": the kinds list_saved_queries serves. */
export const SAVED_QUERY_KINDS = ['library', 'dashboard_tile', 'briefing'] as const;
export type SavedQueryKind = (typeof SAVED_QUERY_KINDS)[number];

const id = { kind: 'string', column: 'id' } as const;
const createdAt = { kind: 'string', column: 'created_at', format: 'timestamp' } as const;
const updatedAt = { kind: 'string', column: 'updated_at', format: 'timestamp' } as const;
const supplierRef = { kind: 'text', column: 'supplier_ref', nullable: true } as const;
const date = (column: string, nullable = false) =>
  ({ kind: 'string', column, format: 'date', nullable }) as const;
const timestamp = (column: string, nullable = false) =>
  ({ kind: 'string', column, format: 'timestamp', nullable }) as const;
const oneOf = (column: string, values: readonly string[], nullable = false) =>
  ({ kind: 'string', column, values, nullable }) as const;

export const WorkerRecord = defineRecord({
  id,
  type: { kind: 'string', column: 'type' },
  displayName: { kind: 'text', column: 'display_name', pii: true },
  workEmail: { kind: 'text', column: 'work_email', pii: true, nullable: true },
  classificationStatus: { kind: 'text', column: 'classification_status', nullable: true },
  tenureStart: date('tenure_start', true),
  onboardingState: oneOf('onboarding_state', ONBOARDING_STATES),
  status: oneOf('status', WORKER_STATUSES),
  createdAt,
  updatedAt,
});

export const TimesheetRecord = defineRecord({
  id,
  workerId: { kind: 'string', column: 'worker_id' },
  entryMode: oneOf('entry_mode', ENTRY_MODES),
  periodStart: date('period_start'),
  periodEnd: date('period_end'),
  status: oneOf('status', TIMESHEET_STATUSES),
  configVersion: { kind: 'int', column: 'config_version' },
  approvalInstanceRef: { kind: 'string', column: 'approval_instance_ref', nullable: true },
  submittedAt: timestamp('submitted_at', true),
  decidedAt: timestamp('decided_at', true),
  createdAt,
  updatedAt,
});

export const TimeEntryRecord = defineRecord({
  id,
  timesheetId: { kind: 'string', column: 'timesheet_id' },
  assignmentId: { kind: 'string', column: 'assignment_id' },
  workerId: { kind: 'string', column: 'worker_id' },
  supplierRef,
  workDate: date('work_date'),
  payCode: { kind: 'text', column: 'pay_code' },
  quantityMinutes: { kind: 'int', column: 'quantity_minutes', nullable: true },
  quantityUnits: { kind: 'int', column: 'quantity_units', nullable: true },
  kind: oneOf('kind', ['original', 'reversal', 'restatement']),
  correctsEntryId: { kind: 'string', column: 'corrects_entry_id', nullable: true },
  capturedOnBehalf: { kind: 'flag', column: 'captured_on_behalf' },
  createdAt,
});

export const InvoiceRecord = defineRecord({
  id,
  supplierRef,
  type: oneOf('type', INVOICE_TYPES),
  number: { kind: 'text', column: 'number', nullable: true },
  status: oneOf('status', INVOICE_STATUSES),
  groupingRule: oneOf('grouping_rule', GROUPING_RULES),
  groupKey: { kind: 'text', column: 'group_key' },
  periodStart: date('period_start'),
  periodEnd: date('period_end'),
  currency: { kind: 'string', column: 'currency' },
  totalCents: { kind: 'int', column: 'total_cents' },
  configVersion: { kind: 'int', column: 'config_version' },
  correctsInvoiceRef: { kind: 'string', column: 'corrects_invoice_ref', nullable: true },
  issuedAt: timestamp('issued_at', true),
  createdAt,
  updatedAt,
});

export const InvoiceLineRecord = defineRecord({
  id,
  invoiceId: { kind: 'string', column: 'invoice_id' },
  supplierRef,
  sourceType: oneOf('source_type', LINE_SOURCE_TYPES),
  sourceRef: { kind: 'string', column: 'source_ref' },
  workerRef: { kind: 'string', column: 'worker_ref', nullable: true },
  assignmentRef: { kind: 'string', column: 'assignment_ref', nullable: true },
  orgUnitKey: { kind: 'text', column: 'org_unit_key', nullable: true },
  payCode: { kind: 'text', column: 'pay_code', nullable: true },
  band: oneOf('band', PAY_BANDS, true),
  description: { kind: 'text', column: 'description' },
  quantity: { kind: 'int', column: 'quantity', nullable: true },
  unit: oneOf('unit', ['minutes', 'units', 'expense'], true),
  rateCents: { kind: 'int', column: 'rate_cents', nullable: true },
  multiplierBp: { kind: 'int', column: 'multiplier_bp', nullable: true },
  amountCents: { kind: 'int', column: 'amount_cents' },
  currency: { kind: 'string', column: 'currency' },
  currencyMismatch: { kind: 'flag', column: 'currency_mismatch', nullable: true },
  createdAt,
});

export const SupplierRecord = defineRecord({
  id,
  code: { kind: 'text', column: 'code' },
  name: { kind: 'text', column: 'name' },
  status: oneOf('status', ['active', 'inactive']),
  createdAt,
  updatedAt,
});

export const AssignmentRecord = defineRecord({
  id,
  workerId: { kind: 'string', column: 'worker_id' },
  supplierRef,
  jobCode: { kind: 'text', column: 'job_code', nullable: true },
  siteKey: { kind: 'text', column: 'site_key', nullable: true },
  orgUnitKey: { kind: 'text', column: 'org_unit_key', nullable: true },
  currency: { kind: 'string', column: 'currency' },
  billRateCents: { kind: 'int', column: 'bill_rate_cents' },
  startDate: date('start_date'),
  endDate: date('end_date', true),
  status: { kind: 'string', column: 'status' },
  createdAt,
  updatedAt,
});

export const ExpenseRecord = defineRecord({
  id,
  workerId: { kind: 'string', column: 'worker_id' },
  assignmentId: { kind: 'string', column: 'assignment_id' },
  supplierRef,
  category: { kind: 'text', column: 'category' },
  incurredOn: date('incurred_on'),
  amountCents: { kind: 'int', column: 'amount_cents' },
  currency: { kind: 'string', column: 'currency' },
  status: oneOf('status', EXPENSE_STATUSES),
  createdAt,
  updatedAt,
});

export const ApprovalStatusRecord = defineRecord(
  {
    id,
    approvalInstanceRef: { kind: 'string', column: 'approval_instance_ref' },
    subjectType: oneOf('subject_type', ['timesheet', 'expense']),
    subjectRef: { kind: 'string', column: 'subject_ref' },
    step: { kind: 'int', column: 'step' },
    state: oneOf('state', APPROVAL_STATES),
    decidedAt: timestamp('decided_at', true),
    createdAt,
    updatedAt,
  },
  // Its subject's worker (a timesheet's or an expense's), for the access trail.
  { namesWorker: 'worker_id' },
);
