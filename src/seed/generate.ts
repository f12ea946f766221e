/**
 * The synthetic data generator (DESIGN §7): three workspaces of deterministic, realistic data over
 * the 36 months ending at asOf, streamed to a SeedSink in batches, table by table in DATA_TABLES
 * order within each workspace. The same options always give byte-identical rows in the same order.
 */
import { Calendar, MINUTE_MS } from './calendar.js';
import { writeApprovalStatuses } from './approvals.js';
import { WorkspaceRun } from './context.js';
import { writeExpenses } from './expenses.js';
import { writeInvoiceLines } from './invoice-lines.js';
import { writeInvoices } from './invoicing.js';
import { buildRoster } from './roster.js';
import { writeSavedQueries } from './saved-queries.js';
import { writeSemanticCatalog } from './semantic-catalog.js';
import { isScale, SCALES, type Scale } from './scales.js';
import type { SeedSink } from '../store/sink.js';
import { writeTimeEntries, writeTimesheets } from './time.js';
import { SPECIAL_WORKERS } from './edge-cases.js';
import { WORKSPACES } from './workspaces.js';
import { writeAssignments, writeSuppliers, writeWorkers } from './workforce.js';

export type { Scale } from './scales.js';

export interface SeedOptions {
  seed: number;
  scale: Scale;
  /** YYYY-MM-DD; the last day of the span. */
  asOf: string;
}

export interface SeedSummary {
  seed: number;
  scale: Scale;
  asOf: string;
  workspaces: {
    id: string;
    name: string;
    plan: string;
    catalogSource: string;
    counts: Record<string, number>;
  }[];
}

/** The workspace row and version 1 of its program configuration, at the very start of the span. */
async function writeWorkspace(run: WorkspaceRun): Promise<void> {
  const { ws, cal } = run;
  const workspaces = run.writer('workspaces');
  workspaces.push({
    id: ws.id,
    name: ws.name,
    plan: ws.plan,
    page_size: ws.pageSize,
    row_budget: ws.rowBudget,
    catalog_source: ws.catalogSource,
    created_at: cal.stamp(cal.startMs + ws.salt * 1_001),
  });
  await run.finish(workspaces);
  const configs = run.writer('program_configs');
  configs.push({
    workspace_id: ws.id,
    version: 1,
    config: JSON.stringify(run.config),
    created_at: cal.stamp(cal.startMs + MINUTE_MS + ws.salt * 1_001),
  });
  await run.finish(configs);
}

export async function generateSeed(options: SeedOptions, sink: SeedSink): Promise<SeedSummary> {
  const { seed, scale, asOf } = options;
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer, got ${String(seed)}`);
  if (!isScale(scale)) throw new Error(`unknown scale ${JSON.stringify(scale)}`);
  const cal = new Calendar(asOf);
  const spec = SCALES[scale];
  const summary: SeedSummary = { seed, scale, asOf, workspaces: [] };
  for (const ws of WORKSPACES) {
    const workers = Math.max(SPECIAL_WORKERS.length + 5, Math.round(spec.workers * ws.share));
    const run = new WorkspaceRun(seed, ws, cal, spec, workers, sink);
    await writeWorkspace(run);
    const roster = buildRoster(run);
    await writeSuppliers(run, roster);
    await writeWorkers(run, roster);
    await writeAssignments(run, roster);
    await writeTimesheets(run, roster);
    await writeTimeEntries(run, roster);
    await writeExpenses(run, roster);
    const books = await writeInvoices(run, roster);
    await writeInvoiceLines(run, roster, books);
    await writeApprovalStatuses(run, roster);
    await writeSavedQueries(run);
    await writeSemanticCatalog(run);
    run.counts.semantic_catalog ??= 0;
    summary.workspaces.push({
      id: ws.id,
      name: ws.name,
      plan: ws.plan,
      catalogSource: ws.catalogSource,
      counts: run.counts,
    });
  }
  return summary;
}
