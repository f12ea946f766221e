import type { Principal } from '../auth/principal.js';
import { SCOPES } from '../auth/scopes.js';
import type { Catalog } from '../semantic/catalog.js';
import { VIEWS } from '../semantic/views.js';
import type { Workspace } from '../store/store.js';
import type { Executor } from './executor.js';
import { runSemanticQuery } from './reports.js';

/**
 * Warm from the start (issue 23): before a server listens, it runs one small report per view of
 * each workspace in process, as the first requests would: the columnar copy's columns are read
 * once and the report path's code (validation, compiling, the engine, shaping rows) has run. No
 * token is made and nothing is sent: the principal is the server's own and reads as staff would,
 * and what it leaves in the report-result cache is keyed by the compiled SQL, as any run's is.
 * Best effort: a failure is logged, never fatal, and it stops at its deadline.
 */
export interface WarmUp {
  queries: number;
  failed: number;
  ms: number;
}

const DEADLINE_MS = 5_000;

/** One query per view of the catalog: its first queryable metric by a category and by month. */
export function warmQueries(catalog: Catalog): { query: Record<string, unknown> }[] {
  const byView = new Map<string, string>();
  for (const metric of catalog.metrics.values())
    if (!metric.evaluative && !byView.has(metric.view)) byView.set(metric.view, metric.key);
  return [...byView].map(([view, metric]) => {
    const definition = VIEWS.get(view);
    const time = definition?.timeDimension;
    const category = definition?.dimensions.find((d) => d !== time);
    const dimensions = [category, time].filter((d): d is string => d !== undefined);
    return {
      query: { metrics: [metric], dimensions, ...(time ? { timeGrain: 'month' } : {}), limit: 1 },
    };
  });
}

export async function warmReports(
  executor: Executor,
  workspaces: readonly Workspace[],
  log: (message: string, failure?: unknown) => void,
): Promise<WarmUp> {
  const started = performance.now();
  const result: WarmUp = { queries: 0, failed: 0, ms: 0 };
  for (const workspace of workspaces) {
    const principal: Principal = {
      tokenId: 'server-warm-up',
      grant: null,
      quotaKey: 'server-warm-up',
      workspaceId: workspace.id,
      workspace,
      expiresAt: null,
      supplierId: null,
      supplierCode: null,
      workerId: null,
      role: 'staff',
      scopes: new Set(SCOPES),
    };
    for (const input of warmQueries(await executor.catalogOf(workspace))) {
      if (performance.now() - started > DEADLINE_MS) break;
      result.queries++;
      const answer = await executor
        .runInProcess(runSemanticQuery, principal, input)
        .catch((failure: unknown) => ({ status: 'failed', failure }));
      const { status, code, failure } = answer as {
        status?: string;
        code?: string;
        failure?: unknown;
      };
      if (status === 'refused' || status === 'failed') {
        result.failed++;
        log(
          `warm-up report ${status === 'refused' ? `refused (${code})` : 'failed'} in ${workspace.id}`,
          failure,
        );
      }
    }
  }
  result.ms = Math.round(performance.now() - started);
  return result;
}
