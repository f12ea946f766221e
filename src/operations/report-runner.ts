import { canonicalJson } from '../semantic/canonical-json.js';
import { compileReport } from '../semantic/compile.js';
import type { Period, Query } from '../semantic/query-schema.js';
import { metricDefinitions, shapeRows } from '../semantic/results.js';
import type { NormalizedQuery } from '../semantic/query-schema.js';
import { normalizeQuery, validateQuery } from '../semantic/validate.js';
import type { OperationContext } from './operation.js';
import type { RefusalCode } from '../semantic/refusals.js';
import { refusal } from './refusal.js';
import { QueryResultSchema, ReportRefusalSchema } from './report-schemas.js';
import type { Static } from 'typebox';
import type { ReportEngine, Row } from '../store/store.js';
import { monotonicNow } from '../deadline.js';
import { ReportEngineFailedError, ReportTimeoutError } from '../errors.js';
import type { ReportMetrics } from '../metrics/service-metrics.js';

type QueryResult = Static<typeof QueryResultSchema>;
type ReportRefusal = Static<typeof ReportRefusalSchema>;

export function reportRefusal(
  code: RefusalCode,
  operationId: string,
  catalogVersion: string,
  closestMetrics: string[] = [],
  message?: string,
): ReportRefusal {
  return { ...refusal(code, operationId, message), closestMetrics, catalogVersion };
}

interface ReportCursor {
  /** Rows already returned. */
  o: number;
  /** The catalogVersion the first page ran against. */
  v: string;
}

function isReportCursor(value: unknown): value is ReportCursor {
  const c = value as ReportCursor;
  return (
    typeof c === 'object' &&
    c !== null &&
    Number.isInteger(c.o) &&
    c.o > 0 &&
    typeof c.v === 'string'
  );
}

/** A report cursor is bound to the token, the operation, the saved query (if any) and the normalised query. */
function reportBinding(
  ctx: OperationContext,
  operationId: string,
  subject: string,
  query: NormalizedQuery,
): string {
  return canonicalJson(['report', ctx.principal.tokenId, operationId, subject, query]);
}

/**
 * Runs a typed query for run_semantic_query and run_saved_query (DESIGN §4.8): normalise,
 * check the cursor (invalid, then stale), validate against the catalog, then read at most
 * min(query.limit, row budget) rows, continuing by cursor up to query.limit in all.
 */
export async function runReportQuery(
  ctx: OperationContext,
  operationId: string,
  definition: { query: Query; period?: Period },
  cursor: string | undefined,
  options: { subject?: string; unknownMetricAs?: RefusalCode; otherRefusalsAs?: RefusalCode } = {},
): Promise<QueryResult | ReportRefusal> {
  const { catalog, payCodes } = await ctx.catalogs.get(ctx.facts, ctx.workspace);
  const now = ctx.now();
  const query = normalizeQuery(definition, now);
  const binding = reportBinding(ctx, operationId, options.subject ?? '', query);
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = ctx.cursors.decode(binding, cursor);
    if (!isReportCursor(decoded) || decoded.o >= query.limit)
      return reportRefusal('invalid_cursor', operationId, catalog.catalogVersion);
    if (decoded.v !== catalog.catalogVersion)
      return reportRefusal('stale_cursor', operationId, catalog.catalogVersion);
    offset = decoded.o;
  }
  const validation = validateQuery(query, catalog);
  if (!validation.ok) {
    let code = validation.code;
    if (code === 'unknown_metric' && options.unknownMetricAs) code = options.unknownMetricAs;
    else if (code !== 'metric_unavailable' && code !== 'unknown_metric' && options.otherRefusalsAs)
      code = options.otherRefusalsAs;
    // The validation's own message says why; a code told as another (run_saved_query) keeps that code's text.
    const message = code === validation.code ? validation.message : undefined;
    return reportRefusal(
      code,
      operationId,
      catalog.catalogVersion,
      validation.closestMetrics,
      message,
    );
  }
  const { plan } = validation;
  const remaining = query.limit - offset;
  const take = Math.min(ctx.workspace.rowBudget, remaining);
  const answerOn = (engine: ReportEngine) => {
    const compiled = compileReport(
      plan,
      {
        dialect: engine.dialect,
        workspaceId: ctx.workspace.id,
        payCodes,
        today: now.toISOString().slice(0, 10),
        rollups: engine.rollups,
      },
      { offset, take: take + 1 },
    );
    return ctx.reportResults.get(reportResultKey(engine, compiled), () =>
      ctx.reports.run(ctx.reportDeadline, (remainingMs) =>
        runOnEngine(ctx.metrics, operationId, engine, compiled, remainingMs),
      ),
    );
  };
  const engine = await ctx.facts.reportEngine();
  // Out of time already (behind others for the event loop, or for the copy's patch): no
  // compilation for an answer that would be refused anyway (issue 56).
  if (monotonicNow() >= ctx.reportDeadline) throw new ReportTimeoutError();
  // A query the columnar copy fails (out of memory) is answered by the row store, exactly.
  const raw = await answerOn(engine).catch(async (error: unknown) => {
    if (!(error instanceof ReportEngineFailedError) || !ctx.facts.fallbackEngine) throw error;
    return answerOn(await ctx.facts.fallbackEngine(error));
  });
  const more = raw.length > take;
  const rows = shapeRows(plan, raw.slice(0, take), operationId);
  const truncatedBy = more
    ? take < remaining
      ? ('row_budget' as const)
      : ('query_limit' as const)
    : null;
  return {
    status: rows.length === 0 ? 'empty' : 'ok',
    // Values are numbers, numeric strings, null or provenance envelopes (results.ts).
    rows: rows as QueryResult['rows'],
    columns: [...query.dimensions, ...query.metrics],
    truncated: more,
    truncatedBy,
    nextCursor:
      truncatedBy === 'row_budget'
        ? ctx.cursors.encode(binding, { o: offset + take, v: catalog.catalogVersion })
        : null,
    catalogVersion: catalog.catalogVersion,
    metricDefinitions: metricDefinitions(plan),
    semanticQuery: query,
  };
}

/**
 * Runs a compiled report on its engine; with metrics on, records how long it ran (answered or
 * past its time limit), the wait for a turn excluded.
 */
function runOnEngine(
  metrics: ReportMetrics | undefined,
  operationId: string,
  engine: ReportEngine,
  compiled: { sql: string; params: unknown[] },
  remainingMs: number,
): Promise<Row[]> {
  if (!metrics) return engine.run(compiled.sql, compiled.params, remainingMs);
  const started = monotonicNow();
  return engine
    .run(compiled.sql, compiled.params, remainingMs)
    .finally(() => metrics.reportRan(operationId, engine.name, (monotonicNow() - started) / 1000));
}

/**
 * A report result's cache key: the engine, the data stamp its facts hold and the compiled SQL with
 * its parameters. The SQL carries everything else the answer depends on: the workspace, the
 * normalised query, the catalog's metric definitions and pay codes, the row window, today's date
 * where a metric reads it. So a new load (a new stamp) or a catalog change that alters the SQL
 * misses, and nothing else does: the cache never answers from older data.
 */
function reportResultKey(engine: ReportEngine, compiled: { sql: string; params: unknown[] }) {
  return JSON.stringify([engine.name, engine.dataStamp, compiled.sql, compiled.params]);
}
