import type { Provenance } from './dom.js';

/**
 * The shapes the page reads from the API, shared by its parts (the report drawing, the explorer,
 * dashboards, records, the MCP view, the session): written once here, so that no part imports
 * another for a type and none import each other in a circle.
 */

/** A report run's answer (run_semantic_query, run_saved_query), as the app reads it. */
export interface ReportResult {
  status: 'ok' | 'empty';
  rows: Record<string, unknown>[];
  columns: string[];
  truncated: boolean;
  truncatedBy: 'query_limit' | 'row_budget' | null;
  nextCursor: string | null;
  catalogVersion: string;
  metricDefinitions: { key: string; label: string; unit: string }[];
  semanticQuery: {
    metrics: string[];
    dimensions?: string[];
    timeGrain?: string | null;
    timeRange?: { from: string; to: string } | null;
    filters?: { dimension: string; operator: string; values: unknown[] }[];
    order?: { key: string; direction: string }[];
    limit?: number;
  };
}

export interface ReportRefusal {
  status: 'refused';
  code: string;
  message: Provenance;
  closestMetrics?: string[];
  catalogVersion?: string;
}

export type ReportAnswer = ReportResult | ReportRefusal;

/** The next page of the same run (its nextCursor), for "Load more". */
export type More = (cursor: string) => Promise<ReportAnswer>;

/** The members of list_catalog the page reads (the explorer, names, the session). */
export interface CatalogMetric {
  key: string;
  label: string;
  description?: string;
  unit: string;
  /** The dimensions a query of this metric may use: the same list for every metric of a view. */
  dimensions: string[];
  evaluative: boolean;
}

export interface CatalogDimension {
  key: string;
  label: string;
  description?: string;
  type: 'categorical' | 'time';
}

export interface ExplorerCatalog {
  metrics: CatalogMetric[];
  dimensions: CatalogDimension[];
  catalogVersion: string;
}
