/**
 * Writes `semantic_catalog` for a workspace whose catalog comes from that table (enterprise): the
 * default definitions plus custom metrics, stored as JSON definitions that the same compiler reads,
 * and one disabled entry, so every path of the table source is exercised.
 */
import { DEFAULT_METRICS } from '../semantic/default-catalog.js';
import type { MetricDefinition } from '../semantic/definitions.js';
import { MINUTE_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';

export const CUSTOM_METRICS: Readonly<Record<string, MetricDefinition>> = {
  holiday_hours: {
    label: 'Holiday hours',
    // A stored description; the other two custom metrics are described from their measures.
    description: 'Net hours booked to the holiday pay code (HOL).',
    view: 'time_entries',
    unit: 'hours',
    measure: {
      agg: 'sum',
      column: 'minutes',
      where: [{ column: 'pay_code', op: 'eq', values: ['HOL'] }],
    },
    scale: 60,
  },
  distinct_workers_with_time: {
    label: 'Workers with time entries',
    view: 'time_entries',
    unit: 'count',
    measure: { agg: 'count_distinct', column: 'worker' },
  },
  max_expense: {
    label: 'Largest approved expense',
    view: 'expenses',
    unit: 'cents',
    measure: {
      agg: 'max',
      column: 'amount',
      where: [{ column: 'expense_status', op: 'eq', values: ['approved'] }],
    },
  },
};

/** Present in the table but switched off: known to the catalog, refused as metric_unavailable. */
export const DISABLED_TABLE_METRIC = 'legacy_headcount';

export async function writeSemanticCatalog(run: WorkspaceRun): Promise<void> {
  if (run.ws.catalogSource !== 'semantic_catalog_table') return;
  const out = run.writer('semantic_catalog');
  const updatedAt = run.cal.stamp(run.cal.startMs + 2 * MINUTE_MS + run.ws.salt * 1_001);
  const entries: [string, MetricDefinition, boolean][] = [
    ...Object.entries(DEFAULT_METRICS).map(([key, d]): [string, MetricDefinition, boolean] => [
      key,
      d,
      true,
    ]),
    ...Object.entries(CUSTOM_METRICS).map(([key, d]): [string, MetricDefinition, boolean] => [
      key,
      d,
      true,
    ]),
    [
      DISABLED_TABLE_METRIC,
      { label: 'Legacy headcount', view: 'workers', unit: 'count', measure: { agg: 'count' } },
      false,
    ],
  ];
  for (const [key, definition, enabled] of entries) {
    out.push({
      workspace_id: run.ws.id,
      key,
      entry_type: 'metric',
      definition: JSON.stringify(definition),
      enabled: enabled ? 1 : 0,
      updated_at: updatedAt,
    });
  }
  await run.finish(out);
}
