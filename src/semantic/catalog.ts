import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { DEFAULT_METRICS } from './default-catalog.js';
import {
  isRatio,
  MetricDefinitionSchema,
  type Aggregate,
  type Metric,
  type MetricDefinition,
} from './definitions.js';
import { describeMetric } from './metric-description.js';
import { DIMENSIONS, VIEWS, type Dimension } from './views.js';
import { schemaCheck } from '../schema-check.js';

const hasMetricDefinitionShape = schemaCheck(MetricDefinitionSchema);

export type CatalogSource = 'default' | 'program_config' | 'semantic_catalog_table';

/** A row of the `semantic_catalog` table: a metric definition as stored (JSON, unchecked). */
export interface CatalogTableEntry {
  key: string;
  definition: unknown;
  enabled: boolean;
}

export interface CatalogInputs {
  /** The workspace's configured source. */
  workspaceSource: string;
  configVersion: number;
  /** The program configuration's enabled set; null means every available metric. */
  enabledMetrics: string[] | null;
  tableEntries: CatalogTableEntry[];
}

/** The catalog a workspace's queries run against, resolved from its inputs; pure. */
export interface Catalog {
  source: CatalogSource;
  catalogVersion: string;
  configVersion: number;
  /** Enabled metrics, evaluative ones included, in key order. */
  metrics: ReadonlyMap<string, Metric>;
  /** Every metric key that exists anywhere for this workspace (enabled or not). */
  knownMetrics: ReadonlySet<string>;
  /** Dimensions of the enabled metrics' views. */
  dimensions: ReadonlyMap<string, Dimension>;
  /** Table entries whose definitions were rejected (invalid shape, view or column). */
  rejected: string[];
}

const KEY = /^[a-z][a-z0-9_]{0,62}$/;

/** A stored definition is usable when it has the schema's shape and names only its view's columns. */
export function checkDefinition(definition: unknown): definition is MetricDefinition {
  if (!hasMetricDefinitionShape(definition)) return false;
  const view = VIEWS.get(definition.view);
  if (!view) return false;
  const aggregates: Aggregate[] = isRatio(definition.measure)
    ? definition.measure.ratio
    : [definition.measure];
  // Own properties only: `constructor` or `toString` must not pass for a column.
  const isColumn = (name: string | undefined) =>
    name !== undefined && Object.hasOwn(view.columns, name);
  return aggregates.every(
    (a) =>
      (a.agg === 'count' ? a.column === undefined || isColumn(a.column) : isColumn(a.column)) &&
      (a.where ?? []).every(
        (c) =>
          isColumn(c.column) &&
          (c.op === 'not_null' ? !c.values?.length : (c.values?.length ?? 0) > 0),
      ),
  );
}

export function resolveCatalog(inputs: CatalogInputs): Catalog {
  const fromTable = inputs.workspaceSource === 'semantic_catalog_table';
  const available = new Map<string, MetricDefinition>();
  const rejected: string[] = [];
  const knownMetrics = new Set(Object.keys(DEFAULT_METRICS));
  if (fromTable) {
    for (const entry of inputs.tableEntries) {
      if (!KEY.test(entry.key)) {
        rejected.push(entry.key);
        continue;
      }
      knownMetrics.add(entry.key);
      if (!checkDefinition(entry.definition)) rejected.push(entry.key);
      else if (entry.enabled) available.set(entry.key, entry.definition);
    }
  } else {
    for (const [key, definition] of Object.entries(DEFAULT_METRICS)) available.set(key, definition);
  }
  const enabledSet = inputs.enabledMetrics === null ? null : new Set(inputs.enabledMetrics);
  const metrics = new Map<string, Metric>();
  for (const key of [...available.keys()].sort()) {
    if (enabledSet === null || enabledSet.has(key))
      metrics.set(key, { key, ...(available.get(key) as MetricDefinition) });
  }
  const dimensionKeys = new Set(
    [...metrics.values()].flatMap((m) => VIEWS.get(m.view)?.dimensions ?? []),
  );
  const dimensions = new Map([...DIMENSIONS].filter(([key]) => dimensionKeys.has(key)));
  const source: CatalogSource = fromTable
    ? 'semantic_catalog_table'
    : enabledSet !== null
      ? 'program_config'
      : 'default';
  const digest = createHash('sha256')
    .update(
      canonicalJson({
        source,
        configVersion: inputs.configVersion,
        metrics: [...metrics.values()],
      }),
    )
    .digest('hex');
  return {
    source,
    catalogVersion: `cv1-${digest.slice(0, 24)}`,
    configVersion: inputs.configVersion,
    metrics,
    knownMetrics,
    dimensions,
    rejected,
  };
}

/**
 * The list_catalog answer: SPEC's members, and (additive) each metric's description and unit
 * (the same closed set as `metricDefinitions`) and each dimension's description.
 */
export function describeCatalog(catalog: Catalog) {
  return {
    metrics: [...catalog.metrics.values()].map((m) => ({
      key: m.key,
      label: m.label,
      description: describeMetric(m),
      unit: m.unit,
      dimensions: VIEWS.get(m.view)?.dimensions ?? [],
      evaluative: m.evaluative === true,
    })),
    dimensions: [...catalog.dimensions.values()].map(({ key, label, description, type }) => ({
      key,
      label,
      description,
      type,
    })),
    catalogVersion: catalog.catalogVersion,
    source: catalog.source,
  };
}
