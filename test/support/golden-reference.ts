/**
 * An independent model of the default report catalog, for the golden tests: raw rows read with
 * plain `SELECT * FROM <table> WHERE workspace_id = ? ORDER BY id` (on either dialect), joined
 * and reduced in JavaScript from the metric definitions in words (SPEC "Query result", DESIGN
 * §4.8 and §6). Nothing here imports the semantic layer: a bug there cannot hide in a copy of
 * itself.
 */

/** Raw SQL with `?` placeholders on the database under test (a harness's `all`). */
export type ReadRows = (sql: string, ...params: unknown[]) => Promise<Record<string, unknown>[]>;

export type DimValue = string | null;
export type Grain = 'day' | 'week' | 'month' | 'quarter' | 'year';
export type Unit = 'cents' | 'count' | 'hours' | 'days' | 'ratio';

/** How a value compares: exactly, relatively (1e-9) or absolutely in days (timestamp arithmetic). */
export type Comparison = 'exact' | 'relative' | 'days';

/** One fact of a view: its dimension values and whatever its metrics read. */
export interface Fact {
  dims: Record<string, DimValue>;
}

interface EntryFact extends Fact {
  minutes: number | null;
  units: number | null;
  band: string | null;
  kind: string;
  onBehalf: boolean;
  entryMode: string;
  workerId: string;
  payCode: string;
}

interface LineFact extends Fact {
  billed: boolean;
  amount: number;
  quantity: number | null;
  unit: string | null;
  band: string | null;
  sourceType: string;
}

interface InvoiceFact extends Fact {
  billed: boolean;
  type: string;
  total: number;
  /** Days from period_end (midnight UTC) to issued_at; null while not issued. */
  cycleDays: number | null;
}

interface TimesheetFact extends Fact {
  status: string;
  /** Days from submitted_at to decided_at; null when either is missing. */
  approvalDays: number | null;
}

interface WorkerFact extends Fact {
  status: string;
  tenureDays: number | null;
}

interface ExpenseFact extends Fact {
  status: string;
  amount: number;
}

export interface ViewModel {
  name: string;
  timeDimension: string;
  dimensions: string[];
  /** Dimensions whose values are people-typed text, sent as provenance envelopes. */
  textDimensions: string[];
  facts: Fact[];
}

export interface MetricModel {
  key: string;
  view: string;
  unit: Unit;
  /** Sums and counts: a group's values add up to the whole. */
  additive: boolean;
  comparison: Comparison;
  value(facts: Fact[]): number | null;
}

export interface Reference {
  today: string;
  views: Map<string, ViewModel>;
  metrics: Map<string, MetricModel>;
  /** Pay code → band, from the workspace's latest program configuration. */
  bands: Map<string, string>;
}

export interface ReferenceQuery {
  dimensions?: string[];
  timeGrain?: Grain | null;
  timeRange?: { from: string; to: string } | null;
  /** Only `eq` and `neq` (a null is not equal, so neq keeps it). */
  filters?: { dimension: string; operator: 'eq' | 'neq'; values: [string] }[];
}

type Raw = Record<string, unknown>;

const DAY_MS = 86_400_000;
const text = (v: unknown): DimValue => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const daysBetween = (from: string, to: string) =>
  (Date.parse(to.length === 10 ? `${to}T00:00:00Z` : to) -
    Date.parse(from.length === 10 ? `${from}T00:00:00Z` : from)) /
  DAY_MS;
const BILLED = new Set(['issued', 'pushed']);
const OVERTIME = new Set(['overtime', 'doubletime']);

const sum = <F>(
  facts: F[],
  value: (f: F) => number | null,
  where: (f: F) => boolean = () => true,
) => facts.reduce((acc, f) => (where(f) ? acc + (value(f) ?? 0) : acc), 0);
const count = <F>(facts: F[], where: (f: F) => boolean = () => true) =>
  facts.reduce((acc, f) => (where(f) ? acc + 1 : acc), 0);
const avg = <F>(facts: F[], value: (f: F) => number | null, where: (f: F) => boolean) => {
  const values = facts
    .filter(where)
    .map(value)
    .filter((v): v is number => v !== null);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
};
const ratio = (n: number, d: number) => (d === 0 ? null : n / d);

/** n / d rounded half away from zero, exactly (integers in, integer out). */
export function roundHalfAwayFromZero(n: number, d: number): number {
  const bn = BigInt(n);
  const bd = BigInt(d);
  const negative = bn < 0n !== bd < 0n;
  const an = bn < 0n ? -bn : bn;
  const ad = bd < 0n ? -bd : bd;
  const q = (2n * an + ad) / (2n * ad);
  return Number(negative ? -q : q);
}

/** ISO date of the start of the bucket a date falls in; weeks start on Monday (UTC). */
export function bucketOf(date: string, grain: Grain): string {
  switch (grain) {
    case 'day':
      return date;
    case 'week': {
      const d = new Date(`${date}T00:00:00Z`);
      d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
      return d.toISOString().slice(0, 10);
    }
    case 'month':
      return `${date.slice(0, 7)}-01`;
    case 'quarter': {
      const month = Number(date.slice(5, 7));
      const first = Math.floor((month - 1) / 3) * 3 + 1;
      return `${date.slice(0, 4)}-${String(first).padStart(2, '0')}-01`;
    }
    case 'year':
      return `${date.slice(0, 4)}-01-01`;
  }
}

function metric<F extends Fact>(
  key: string,
  view: string,
  unit: Unit,
  shape: { additive?: boolean; comparison?: Comparison },
  value: (facts: F[]) => number | null,
): MetricModel {
  return {
    key,
    view,
    unit,
    additive: shape.additive ?? false,
    comparison: shape.comparison ?? 'exact',
    value: (facts) => value(facts as F[]),
  };
}

const additive = { additive: true };
const additiveHours = { additive: true, comparison: 'relative' as const };
const relative = { comparison: 'relative' as const };
const timestampDays = { comparison: 'days' as const };

/** The default catalog's non-evaluative metrics, from their definitions in words. */
const METRICS: MetricModel[] = [
  // time_entries: net of reversals (negative) and restatements (positive).
  metric<EntryFact>('hours_worked', 'time_entries', 'hours', additiveHours, (fs) => {
    return sum(fs, (f) => f.minutes) / 60;
  }),
  metric<EntryFact>('overtime_hours', 'time_entries', 'hours', additiveHours, (fs) => {
    return (
      sum(
        fs,
        (f) => f.minutes,
        (f) => f.band !== null && OVERTIME.has(f.band),
      ) / 60
    );
  }),
  metric<EntryFact>('overtime_hours_share', 'time_entries', 'ratio', relative, (fs) =>
    ratio(
      sum(
        fs,
        (f) => f.minutes,
        (f) => f.band !== null && OVERTIME.has(f.band),
      ),
      sum(fs, (f) => f.minutes),
    ),
  ),
  metric<EntryFact>('days_worked', 'time_entries', 'days', additive, (fs) =>
    sum(
      fs,
      (f) => f.units,
      (f) => f.entryMode === 'daily',
    ),
  ),
  metric<EntryFact>('on_behalf_share', 'time_entries', 'ratio', relative, (fs) =>
    ratio(
      count(fs, (f) => f.kind === 'original' && f.onBehalf),
      count(fs, (f) => f.kind === 'original'),
    ),
  ),
  metric<EntryFact>('time_entry_count', 'time_entries', 'count', additive, (fs) => fs.length),

  // invoice_lines: issued and pushed invoices only.
  metric<LineFact>('spend', 'invoice_lines', 'cents', additive, (fs) =>
    sum(
      fs,
      (f) => f.amount,
      (f) => f.billed,
    ),
  ),
  metric<LineFact>('labor_spend', 'invoice_lines', 'cents', additive, (fs) =>
    sum(
      fs,
      (f) => f.amount,
      (f) => f.billed && f.sourceType === 'timesheet',
    ),
  ),
  metric<LineFact>('expense_spend', 'invoice_lines', 'cents', additive, (fs) =>
    sum(
      fs,
      (f) => f.amount,
      (f) => f.billed && f.sourceType === 'expense',
    ),
  ),
  metric<LineFact>('overtime_spend', 'invoice_lines', 'cents', additive, (fs) =>
    sum(
      fs,
      (f) => f.amount,
      (f) => f.billed && f.band !== null && OVERTIME.has(f.band),
    ),
  ),
  metric<LineFact>('avg_regular_rate', 'invoice_lines', 'cents', {}, (fs) => {
    const regular = (f: LineFact) => f.billed && f.band === 'regular' && f.unit === 'minutes';
    const amount = sum(fs, (f) => f.amount, regular);
    const minutes = sum(fs, (f) => f.quantity, regular);
    return minutes === 0 ? null : roundHalfAwayFromZero(60 * amount, minutes);
  }),

  // invoices
  metric<InvoiceFact>('invoice_count', 'invoices', 'count', additive, (fs) => fs.length),
  metric<InvoiceFact>('invoiced_total', 'invoices', 'cents', additive, (fs) =>
    sum(
      fs,
      (f) => f.total,
      (f) => f.billed && f.type === 'invoice',
    ),
  ),
  metric<InvoiceFact>('credit_note_total', 'invoices', 'cents', additive, (fs) =>
    sum(
      fs,
      (f) => f.total,
      (f) => f.billed && f.type === 'credit_note',
    ),
  ),
  metric<InvoiceFact>('credit_note_rate', 'invoices', 'ratio', relative, (fs) =>
    ratio(
      count(fs, (f) => f.billed && f.type === 'credit_note'),
      count(fs, (f) => f.billed && f.type === 'invoice'),
    ),
  ),
  metric<InvoiceFact>('invoice_cycle_days', 'invoices', 'days', timestampDays, (fs) =>
    avg(
      fs,
      (f) => f.cycleDays,
      (f) => f.billed,
    ),
  ),

  // timesheets
  metric<TimesheetFact>('timesheet_count', 'timesheets', 'count', additive, (fs) => fs.length),
  metric<TimesheetFact>('timesheet_approval_days', 'timesheets', 'days', timestampDays, (fs) =>
    avg(
      fs,
      (f) => f.approvalDays,
      (f) => f.status === 'approved',
    ),
  ),
  metric<TimesheetFact>('timesheet_rejection_rate', 'timesheets', 'ratio', relative, (fs) =>
    ratio(
      count(fs, (f) => f.status === 'rejected'),
      count(fs, (f) => f.status === 'approved' || f.status === 'rejected'),
    ),
  ),

  // workers
  metric<WorkerFact>('worker_count', 'workers', 'count', additive, (fs) => fs.length),
  metric<WorkerFact>('active_worker_count', 'workers', 'count', additive, (fs) =>
    count(fs, (f) => f.status === 'active'),
  ),
  metric<WorkerFact>('avg_tenure_days', 'workers', 'days', relative, (fs) =>
    avg(
      fs,
      (f) => f.tenureDays,
      () => true,
    ),
  ),

  // expenses
  metric<ExpenseFact>('expense_total', 'expenses', 'cents', additive, (fs) =>
    sum(
      fs,
      (f) => f.amount,
      (f) => f.status === 'approved',
    ),
  ),
  metric<ExpenseFact>('expense_count', 'expenses', 'count', additive, (fs) => fs.length),
];

/**
 * Custom metrics the seed stores in ws_enterprise's semantic_catalog table besides the defaults,
 * from their labels: hours on the HOL pay code, workers with any time entry, the largest approved
 * expense.
 */
export const ENTERPRISE_EXTRA_METRICS: MetricModel[] = [
  metric<EntryFact>('holiday_hours', 'time_entries', 'hours', additiveHours, (fs) => {
    return (
      sum(
        fs,
        (f) => f.minutes,
        (f) => f.payCode === 'HOL',
      ) / 60
    );
  }),
  metric<EntryFact>(
    'distinct_workers_with_time',
    'time_entries',
    'count',
    {},
    (fs) => new Set(fs.map((f) => f.workerId)).size,
  ),
  metric<ExpenseFact>('max_expense', 'expenses', 'cents', {}, (fs) => {
    const approved = fs.filter((f) => f.status === 'approved').map((f) => f.amount);
    return approved.length === 0 ? null : Math.max(...approved);
  }),
];

/** Evaluative metrics: listed in the catalog, never served. */
export const EVALUATIVE_METRICS = [
  'supplier_scorecard_score',
  'rate_variance_vs_peers',
  'coemployment_risk_score',
];

/** Reads a workspace's raw rows and builds the facts of every view. */
export async function buildReference(
  all: ReadRows,
  workspaceId: string,
  today: string,
  extraMetrics: MetricModel[] = [],
): Promise<Reference> {
  // Ordered by key, so both dialects list facts (and so pick sample values) in the same order.
  const rows = (table: string, order = 'id'): Promise<Raw[]> =>
    all(`SELECT * FROM ${table} WHERE workspace_id = ? ORDER BY ${order}`, workspaceId);
  const byId = (raw: Raw[]) => new Map(raw.map((r) => [String(r.id), r]));
  const [
    configs,
    assignmentRows,
    workerRows,
    timesheetRows,
    invoiceRows,
    entries,
    lines,
    expenses,
  ] = await Promise.all([
    rows('program_configs', 'version DESC'),
    rows('assignments'),
    rows('workers'),
    rows('timesheets'),
    rows('invoices'),
    rows('time_entries'),
    rows('invoice_lines'),
    rows('expenses'),
  ]);
  const config = JSON.parse(String(configs[0].config)) as {
    payCodes: { code: string; band: string }[];
  };
  const bands = new Map(config.payCodes.map((p) => [p.code, p.band]));

  const assignments = byId(assignmentRows);
  const workers = byId(workerRows);
  const timesheets = byId(timesheetRows);
  const invoices = byId(invoiceRows);
  const must = (map: Map<string, Raw>, id: unknown, what: string): Raw => {
    const row = map.get(String(id));
    if (!row) throw new Error(`reference: ${what} ${String(id)} is missing`);
    return row;
  };

  const entryFacts: EntryFact[] = entries.map((e) => {
    const a = must(assignments, e.assignment_id, 'assignment');
    const w = must(workers, e.worker_id, 'worker');
    const t = must(timesheets, e.timesheet_id, 'timesheet');
    const band = bands.get(String(e.pay_code)) ?? null;
    return {
      dims: {
        work_date: text(e.work_date),
        supplier: text(e.supplier_ref),
        org_unit: text(a.org_unit_key),
        site: text(a.site_key),
        job_code: text(a.job_code),
        pay_code: text(e.pay_code),
        band,
        worker_type: text(w.type),
        entry_mode: text(t.entry_mode),
      },
      minutes: num(e.quantity_minutes),
      units: num(e.quantity_units),
      band,
      kind: String(e.kind),
      onBehalf: Number(e.captured_on_behalf) === 1,
      entryMode: String(t.entry_mode),
      workerId: String(e.worker_id),
      payCode: String(e.pay_code),
    };
  });

  const lineFacts: LineFact[] = lines.map((l) => {
    const i = must(invoices, l.invoice_id, 'invoice');
    return {
      dims: {
        invoice_period: text(i.period_start),
        supplier: text(l.supplier_ref),
        org_unit: text(l.org_unit_key),
        currency: text(l.currency),
        band: text(l.band),
        pay_code: text(l.pay_code),
        source_type: text(l.source_type),
        invoice_status: text(i.status),
        invoice_type: text(i.type),
      },
      billed: BILLED.has(String(i.status)),
      amount: Number(l.amount_cents),
      quantity: num(l.quantity),
      unit: text(l.unit),
      band: text(l.band),
      sourceType: String(l.source_type),
    };
  });

  const invoiceFacts: InvoiceFact[] = [...invoices.values()].map((i) => {
    const issuedAt = text(i.issued_at);
    return {
      dims: {
        issued_date: issuedAt === null ? null : issuedAt.slice(0, 10),
        supplier: text(i.supplier_ref),
        currency: text(i.currency),
        invoice_status: text(i.status),
        invoice_type: text(i.type),
        grouping_rule: text(i.grouping_rule),
      },
      billed: BILLED.has(String(i.status)),
      type: String(i.type),
      total: Number(i.total_cents),
      cycleDays: issuedAt === null ? null : daysBetween(String(i.period_end), issuedAt),
    };
  });

  const timesheetFacts: TimesheetFact[] = [...timesheets.values()].map((t) => {
    const w = must(workers, t.worker_id, 'worker');
    const submitted = text(t.submitted_at);
    const decided = text(t.decided_at);
    return {
      dims: {
        period_start: text(t.period_start),
        supplier: text(w.supplier_ref),
        org_unit: text(w.org_unit_key),
        timesheet_status: text(t.status),
        entry_mode: text(t.entry_mode),
      },
      status: String(t.status),
      approvalDays: submitted === null || decided === null ? null : daysBetween(submitted, decided),
    };
  });

  const workerFacts: WorkerFact[] = [...workers.values()].map((w) => {
    const tenureStart = text(w.tenure_start);
    return {
      dims: {
        tenure_start: tenureStart,
        supplier: text(w.supplier_ref),
        org_unit: text(w.org_unit_key),
        worker_type: text(w.type),
        onboarding_state: text(w.onboarding_state),
        worker_status: text(w.status),
      },
      status: String(w.status),
      tenureDays: tenureStart === null ? null : daysBetween(tenureStart, today),
    };
  });

  const expenseFacts: ExpenseFact[] = expenses.map((x) => {
    const a = must(assignments, x.assignment_id, 'assignment');
    return {
      dims: {
        incurred_on: text(x.incurred_on),
        supplier: text(x.supplier_ref),
        org_unit: text(a.org_unit_key),
        currency: text(x.currency),
        expense_category: text(x.category),
        expense_status: text(x.status),
      },
      status: String(x.status),
      amount: Number(x.amount_cents),
    };
  });

  const view = (
    name: string,
    timeDimension: string,
    facts: Fact[],
    textDimensions: string[],
  ): ViewModel => ({
    name,
    timeDimension,
    dimensions: Object.keys(facts[0].dims),
    textDimensions,
    facts,
  });
  const views = new Map(
    [
      view('time_entries', 'work_date', entryFacts, [
        'supplier',
        'org_unit',
        'site',
        'job_code',
        'pay_code',
      ]),
      view('invoice_lines', 'invoice_period', lineFacts, ['supplier', 'org_unit', 'pay_code']),
      view('invoices', 'issued_date', invoiceFacts, ['supplier']),
      view('timesheets', 'period_start', timesheetFacts, ['supplier', 'org_unit']),
      view('workers', 'tenure_start', workerFacts, ['supplier', 'org_unit']),
      view('expenses', 'incurred_on', expenseFacts, ['supplier', 'org_unit', 'expense_category']),
    ].map((v) => [v.name, v]),
  );
  const metrics = new Map([...METRICS, ...extraMetrics].map((m) => [m.key, m]));
  return { today, views, metrics, bands };
}

/** A group's key: its dimension values in query order, as JSON (null stays null). */
export const groupKey = (values: DimValue[]) => JSON.stringify(values);

/** What the API should answer: group key → value, one entry per group with at least one fact. */
export function expectedGroups(
  ref: Reference,
  metricKey: string,
  query: ReferenceQuery = {},
): Map<string, number | null> {
  const m = ref.metrics.get(metricKey);
  if (!m) throw new Error(`reference: no metric ${metricKey}`);
  const view = ref.views.get(m.view) as ViewModel;
  const dims = query.dimensions ?? [];
  const range = query.timeRange ?? null;
  const groups = new Map<string, Fact[]>();
  for (const fact of view.facts) {
    const time = fact.dims[view.timeDimension];
    if (range && (time === null || time < range.from || time > range.to)) continue;
    const kept = (query.filters ?? []).every((f) => {
      const v = fact.dims[f.dimension];
      return f.operator === 'eq' ? v === f.values[0] : v !== f.values[0];
    });
    if (!kept) continue;
    const key = groupKey(
      dims.map((d) => {
        const v = fact.dims[d];
        return d === view.timeDimension && query.timeGrain && v !== null
          ? bucketOf(v, query.timeGrain)
          : v;
      }),
    );
    const group = groups.get(key);
    if (group) group.push(fact);
    else groups.set(key, [fact]);
  }
  return new Map([...groups].map(([key, facts]) => [key, m.value(facts)]));
}

/** The metrics a view serves, in catalog order. */
export function metricsOfView(ref: Reference, view: string): string[] {
  return [...ref.metrics.values()].filter((m) => m.view === view).map((m) => m.key);
}
