/**
 * Writes `saved_queries`: a handful per workspace of each kind (library, dashboard tile, briefing),
 * with definitions in the stored `{ query, period? }` form. They only use metric keys the
 * workspace's catalog has: the team plan's subset everywhere, plus a few default-catalog metrics on
 * the business plan (whose catalog is the whole default one). Some names are the unusual text.
 * Money metrics are grouped by currency (SPEC: money is never converted, currencies are kept
 * apart by the currency dimension). The dashboard's id reads as its title ("Program operations",
 * docs/web.md).
 */
import type { SavedQueryKind } from '../records/resources.js';
import { DAY_MS, HOUR_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { INSTRUCTION_LIKE } from './people-text.js';
import { Stream } from './random.js';

interface QueryDef {
  metrics: string[];
  dimensions: string[];
  timeGrain: string | null;
}

interface Period {
  kind: 'relative';
  unit: 'month' | 'quarter' | 'year';
  offset: number;
}

interface SavedQuerySpec {
  kind: SavedQueryKind;
  name: string;
  query: QueryDef;
  period?: Period;
  /** Only on the business plan, whose catalog is the whole default catalog. */
  defaultCatalogOnly?: boolean;
}

const q = (metrics: string[], dimensions: string[], timeGrain: string | null = null): QueryDef => ({
  metrics,
  dimensions,
  timeGrain,
});

const SPECS: SavedQuerySpec[] = [
  { kind: 'library', name: 'Spend by supplier', query: q(['spend'], ['supplier', 'currency']) },
  {
    kind: 'library',
    name: 'Overtime last month by org unit 📈',
    query: q(['hours_worked', 'overtime_hours'], ['org_unit']),
    period: { kind: 'relative', unit: 'month', offset: -1 },
  },
  {
    kind: 'library',
    name: `Headcount — ${INSTRUCTION_LIKE[0]}`,
    query: q(['worker_count'], ['supplier']),
  },
  {
    kind: 'dashboard_tile',
    name: 'Invoices by status',
    query: q(['invoice_count', 'invoiced_total'], ['invoice_status', 'currency']),
  },
  {
    kind: 'dashboard_tile',
    name: 'דוח הוצאות עבודה חודשי',
    query: q(['labor_spend'], ['invoice_period', 'currency'], 'month'),
    period: { kind: 'relative', unit: 'year', offset: 0 },
  },
  {
    kind: 'dashboard_tile',
    name: 'Time\u200B entries per week',
    query: q(['time_entry_count'], ['work_date'], 'week'),
    period: { kind: 'relative', unit: 'quarter', offset: 0 },
  },
  {
    kind: 'briefing',
    name: 'Quarterly timesheet briefing',
    query: q(['timesheet_count'], ['timesheet_status']),
    period: { kind: 'relative', unit: 'quarter', offset: -1 },
  },
  {
    kind: 'briefing',
    name: 'Spend by currency, this year',
    query: q(['spend'], ['currency']),
    period: { kind: 'relative', unit: 'year', offset: 0 },
  },
  {
    kind: 'library',
    name: 'Expenses by category 🧾',
    query: q(['expense_total', 'expense_count'], ['expense_category', 'currency']),
    defaultCatalogOnly: true,
  },
  {
    kind: 'briefing',
    name: 'On-behalf capture share',
    query: q(['on_behalf_share'], ['supplier']),
    period: { kind: 'relative', unit: 'month', offset: -1 },
    defaultCatalogOnly: true,
  },
  // Counts workers by tenure start in the dashboard's period (all of them, offboarded included,
  // without one): named for that, so it does not read as today's headcount.
  {
    kind: 'dashboard_tile',
    name: 'Workers by tenure start (any status)',
    query: q(['worker_count'], []),
  },
  {
    kind: 'dashboard_tile',
    name: 'Hours worked by supplier',
    query: q(['hours_worked'], ['supplier']),
  },
  {
    kind: 'dashboard_tile',
    name: 'Rejected share of timesheets by month',
    query: q(['timesheet_rejection_rate'], ['period_start'], 'month'),
    defaultCatalogOnly: true,
  },
];

export async function writeSavedQueries(run: WorkspaceRun): Promise<void> {
  const { cal, ws } = run;
  const out = run.writer('saved_queries');
  const specs = SPECS.filter((s) => !s.defaultCatalogOnly || ws.catalogSource === 'default');
  let seq = 1;
  for (const spec of specs) {
    const rng = run.rng(Stream.SavedQuery, seq);
    // Saved during the last year; last changed (pinned) up to two months later, never after asOf.
    const createdMs =
      cal.dayMs(Math.max(0, cal.days - 365 + rng.int(0, 300))) + rng.int(8 * HOUR_MS, 18 * HOUR_MS);
    const pinnedMs = Math.min(
      cal.asOfEndMs,
      createdMs + rng.int(0, 60) * DAY_MS + rng.int(0, HOUR_MS),
    );
    const definition = spec.period
      ? { query: spec.query, period: spec.period }
      : { query: spec.query };
    const full = out.push({
      id: run.id('sq', seq++),
      workspace_id: ws.id,
      kind: spec.kind,
      name: spec.name,
      dashboard_id: spec.kind === 'dashboard_tile' ? 'program-operations' : null,
      definition: JSON.stringify(definition),
      author: 'seed',
      pinned_at: cal.stamp(pinnedMs),
      created_at: cal.stamp(createdMs),
    });
    if (full) await out.flush();
  }
  await run.finish(out);
}
