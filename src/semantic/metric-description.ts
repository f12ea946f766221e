import { isRatio, type Aggregate, type Metric, type Unit } from './definitions.js';

/**
 * What list_catalog says a metric means: its definition's own `description` (every default
 * metric has one; a `semantic_catalog` row may), else a sentence written from its measure, so that
 * an agent can tell a workspace's custom metric from its label and this alone. The sentence names
 * the view, the aggregation and the columns (names the definition check has matched against the
 * view), never a condition's values: those are stored text, and the catalog states rules, not data.
 */
export function describeMetric(metric: Metric): string {
  if (metric.description !== undefined) return metric.description;
  const { measure, scale, factor } = metric;
  const value = isRatio(measure)
    ? `${aggregateText(measure.ratio[0])}, divided by ${aggregateText(measure.ratio[1])}`
    : aggregateText(measure);
  const scaled = `${value}${factor ? `, times ${factor}` : ''}${scale ? `, divided by ${scale}` : ''}`;
  return `A metric defined for this workspace on the ${metric.view} view: ${scaled}; ${UNIT_TEXT[metric.unit]}.`;
}

const UNIT_TEXT: Record<Unit, string> = {
  cents: 'in integer cents of the currency (group by currency)',
  count: 'a count',
  hours: 'in hours',
  days: 'in days',
  ratio: 'a ratio',
};

const AGGREGATE_TEXT: Record<Aggregate['agg'], (column: string | undefined) => string> = {
  sum: (column) => `the sum of ${column}`,
  count: (column) => (column ? `the number of rows with a ${column}` : 'the number of rows'),
  count_distinct: (column) => `the number of distinct ${column} values`,
  avg: (column) => `the average of ${column}`,
  min: (column) => `the smallest ${column}`,
  max: (column) => `the largest ${column}`,
};

function aggregateText(aggregate: Aggregate): string {
  const text = AGGREGATE_TEXT[aggregate.agg](aggregate.column);
  const conditions = [...new Set((aggregate.where ?? []).map((c) => c.column))];
  return conditions.length
    ? `${text} (restricted by conditions on ${conditions.join(', ')})`
    : text;
}
