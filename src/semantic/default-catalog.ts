import type { Aggregate, Condition, MetricDefinition } from './definitions.js';

/** The default catalog of DESIGN §6, as data. README "Report layer" states each definition in words. */
const billed: Condition = { column: 'invoice_status', op: 'in', values: ['issued', 'pushed'] };
const overtimeBand: Condition = { column: 'band', op: 'in', values: ['overtime', 'doubletime'] };
const sum = (column: string, ...where: Condition[]): Aggregate => ({
  agg: 'sum',
  column,
  ...(where.length ? { where } : {}),
});
const count = (...where: Condition[]): Aggregate => ({
  agg: 'count',
  ...(where.length ? { where } : {}),
});
const eq = (column: string, value: string | number): Condition => ({
  column,
  op: 'eq',
  values: [value],
});
const within = (column: string, ...values: string[]): Condition => ({ column, op: 'in', values });

export const DEFAULT_METRICS: Readonly<Record<string, MetricDefinition>> = {
  // time_entries: quantities are net, since reversals are negative and restatements re-add.
  hours_worked: {
    label: 'Hours worked',
    description:
      'Net hours on time entries: minutes / 60, reversals negative and restatements re-added, any timesheet status.',
    view: 'time_entries',
    unit: 'hours',
    measure: sum('minutes'),
    scale: 60,
  },
  overtime_hours: {
    label: 'Overtime hours',
    description:
      "Net hours on time entries whose pay code's configured band is overtime or doubletime.",
    view: 'time_entries',
    unit: 'hours',
    measure: sum('minutes', overtimeBand),
    scale: 60,
  },
  overtime_hours_share: {
    label: 'Share of hours at overtime or double time',
    description:
      'Overtime and double-time minutes divided by all minutes of time entries (0 to 1).',
    view: 'time_entries',
    unit: 'ratio',
    measure: { ratio: [sum('minutes', overtimeBand), sum('minutes')] },
  },
  days_worked: {
    label: 'Days worked (daily timesheets)',
    description:
      'Days entered on daily timesheets (the units of their time entries, net of reversals).',
    view: 'time_entries',
    unit: 'days',
    measure: sum('units', eq('entry_mode', 'daily')),
  },
  on_behalf_share: {
    label: 'Share of original entries captured on behalf of the worker',
    description:
      'Original time entries captured on behalf of the worker, divided by all original entries (0 to 1).',
    view: 'time_entries',
    unit: 'ratio',
    measure: {
      ratio: [count(eq('kind', 'original'), eq('on_behalf', 1)), count(eq('kind', 'original'))],
    },
  },
  time_entry_count: {
    label: 'Time entries (all kinds)',
    description: 'Number of time entries of every kind: originals, reversals and restatements.',
    view: 'time_entries',
    unit: 'count',
    measure: count(),
  },

  // invoice_lines: issued and pushed invoices only; credit-note lines are negative, void and draft excluded.
  spend: {
    label: 'Spend',
    description:
      'Invoiced amount of lines on issued and pushed invoices, in integer cents of the invoice currency; credit-note lines negative, draft and void excluded. Group by currency.',
    view: 'invoice_lines',
    unit: 'cents',
    measure: sum('amount', billed),
  },
  labor_spend: {
    label: 'Labor spend',
    description:
      'Spend on invoice lines from timesheets (labour), in integer cents of the invoice currency. Group by currency.',
    view: 'invoice_lines',
    unit: 'cents',
    measure: sum('amount', billed, eq('source_type', 'timesheet')),
  },
  expense_spend: {
    label: 'Expense spend',
    description:
      'Spend on invoice lines from expenses, in integer cents of the invoice currency. Group by currency.',
    view: 'invoice_lines',
    unit: 'cents',
    measure: sum('amount', billed, eq('source_type', 'expense')),
  },
  overtime_spend: {
    label: 'Overtime spend',
    description:
      'Spend on overtime and double-time invoice lines, in integer cents of the invoice currency. Group by currency.',
    view: 'invoice_lines',
    unit: 'cents',
    measure: sum('amount', billed, overtimeBand),
  },
  avg_regular_rate: {
    label: 'Average regular rate per hour',
    description:
      'Average regular bill rate in cents per hour: 60 x amount / minutes of regular, minute-based invoice lines on issued and pushed invoices. Group by currency.',
    view: 'invoice_lines',
    unit: 'cents',
    measure: {
      ratio: [
        sum('amount', billed, eq('band', 'regular'), eq('unit', 'minutes')),
        sum('quantity', billed, eq('band', 'regular'), eq('unit', 'minutes')),
      ],
    },
    factor: 60,
  },

  // invoices
  invoice_count: {
    label: 'Invoices and credit notes (any status)',
    description: 'Number of invoices and credit notes, of any status.',
    view: 'invoices',
    unit: 'count',
    measure: count(),
  },
  invoiced_total: {
    label: 'Invoiced total (issued and pushed invoices)',
    description:
      'Sum of the totals of issued and pushed invoices (credit notes excluded), in integer cents of the invoice currency. Group by currency.',
    view: 'invoices',
    unit: 'cents',
    measure: sum('total', billed, eq('invoice_type', 'invoice')),
  },
  credit_note_total: {
    label: 'Credit note total (issued and pushed, negative)',
    description:
      'Sum of the totals of issued and pushed credit notes (negative), in integer cents of the invoice currency. Group by currency.',
    view: 'invoices',
    unit: 'cents',
    measure: sum('total', billed, eq('invoice_type', 'credit_note')),
  },
  credit_note_rate: {
    label: 'Credit notes per invoice (issued and pushed)',
    description: 'Issued and pushed credit notes divided by issued and pushed invoices.',
    view: 'invoices',
    unit: 'ratio',
    measure: {
      ratio: [
        count(billed, eq('invoice_type', 'credit_note')),
        count(billed, eq('invoice_type', 'invoice')),
      ],
    },
  },
  invoice_cycle_days: {
    label: 'Days from period end to issue',
    description:
      "Average days from an invoice's period end to its issue, over issued and pushed invoices.",
    view: 'invoices',
    unit: 'days',
    measure: { agg: 'avg', column: 'cycle_days', where: [billed] },
  },

  // timesheets
  timesheet_count: {
    label: 'Timesheets',
    description: 'Number of timesheets, of any status.',
    view: 'timesheets',
    unit: 'count',
    measure: count(),
  },
  timesheet_approval_days: {
    label: 'Days from submission to approval',
    description: 'Average days from submission to decision of approved timesheets.',
    view: 'timesheets',
    unit: 'days',
    measure: { agg: 'avg', column: 'approval_days', where: [eq('timesheet_status', 'approved')] },
  },
  timesheet_rejection_rate: {
    label: 'Rejected share of decided timesheets',
    description: 'Rejected timesheets divided by decided (approved or rejected) ones (0 to 1).',
    view: 'timesheets',
    unit: 'ratio',
    measure: {
      ratio: [
        count(eq('timesheet_status', 'rejected')),
        count(within('timesheet_status', 'approved', 'rejected')),
      ],
    },
  },

  // workers
  worker_count: {
    label: 'Workers',
    description: 'Number of workers, of any status.',
    view: 'workers',
    unit: 'count',
    measure: count(),
  },
  active_worker_count: {
    label: 'Active workers',
    description: 'Number of workers whose status is active.',
    view: 'workers',
    unit: 'count',
    measure: count(eq('worker_status', 'active')),
  },
  avg_tenure_days: {
    label: 'Average tenure in days',
    description:
      "Average days from a worker's tenure start to today (UTC), over workers with a tenure start.",
    view: 'workers',
    unit: 'days',
    measure: {
      agg: 'avg',
      column: 'tenure_days',
      where: [{ column: 'tenure_start', op: 'not_null' }],
    },
  },

  // expenses
  expense_total: {
    label: 'Approved expenses',
    description:
      'Sum of approved expenses, in integer cents of the expense currency. Group by currency.',
    view: 'expenses',
    unit: 'cents',
    measure: sum('amount', eq('expense_status', 'approved')),
  },
  expense_count: {
    label: 'Expenses (any status)',
    description: 'Number of expenses, of any status.',
    view: 'expenses',
    unit: 'count',
    measure: count(),
  },

  // Evaluative: listed so agents learn they exist, never served (evaluative_not_available).
  supplier_scorecard_score: {
    label: 'Supplier scorecard score',
    description:
      'Evaluative: listed so that you know it exists; never served through the API (evaluative_not_available).',
    view: 'invoice_lines',
    unit: 'ratio',
    measure: count(),
    evaluative: true,
  },
  rate_variance_vs_peers: {
    label: 'Rate variance against peers',
    description:
      'Evaluative: listed so that you know it exists; never served through the API (evaluative_not_available).',
    view: 'invoice_lines',
    unit: 'ratio',
    measure: count(),
    evaluative: true,
  },
  coemployment_risk_score: {
    label: 'Co-employment risk score',
    description:
      'Evaluative: listed so that you know it exists; never served through the API (evaluative_not_available).',
    view: 'workers',
    unit: 'ratio',
    measure: count(),
    evaluative: true,
  },
};
