import { provenance } from '../provenance.js';
import { isRatio, type Metric } from './definitions.js';
import type { QueryPlan } from './validate.js';
import { DIMENSIONS } from './views.js';

export type MetricValue = number | string | null;

/** An exact integer from a driver (number, bigint or numeric text): a number when safe, else text. */
function exactInteger(raw: unknown): MetricValue {
  if (typeof raw === 'bigint')
    return raw >= BigInt(Number.MIN_SAFE_INTEGER) && raw <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(raw)
      : raw.toString();
  if (typeof raw === 'string') return Number.isSafeInteger(Number(raw)) ? Number(raw) : raw;
  return raw as number;
}

function toNumber(raw: unknown): number | null {
  return raw === null || raw === undefined ? null : Number(raw);
}

/** Half away from zero (DESIGN §4.8), so -2.5 cents is -3. */
function roundCents(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** A value beyond 2^53 travels as a numeric string (DESIGN §4.8). */
function safe(value: number): MetricValue {
  if (Number.isSafeInteger(value) || !Number.isInteger(value)) return value;
  return BigInt(value).toString();
}

/** Turns a metric's raw aggregate column(s) into its value in its unit. */
export function metricValue(metric: Metric, raw: unknown[]): MetricValue {
  const factor = metric.factor ?? 1;
  const scale = metric.scale ?? 1;
  let value: number | null;
  if (isRatio(metric.measure)) {
    const [n, d] = raw.map(toNumber);
    value = n === null || d === null || d === 0 ? null : (n * factor) / d / scale;
  } else {
    // Integers from the driver (bigint, or numeric text from PostgreSQL) stay exact when unscaled.
    const integral =
      typeof raw[0] === 'bigint' || (typeof raw[0] === 'string' && /^-?\d+$/.test(raw[0]));
    if (raw[0] === null || raw[0] === undefined) return null;
    if (integral && factor === 1 && scale === 1) return exactInteger(raw[0]);
    const n = toNumber(raw[0]);
    value = n === null ? null : (n * factor) / scale;
  }
  if (value === null || !Number.isFinite(value)) return null;
  return safe(metric.unit === 'cents' ? roundCents(value) : value);
}

/** Rows as the API returns them: dimension keys then metric keys; people-typed values wrapped. */
export function shapeRows(
  plan: QueryPlan,
  rawRows: Record<string, unknown>[],
  operationId: string,
  firstIndex = 0,
) {
  const { query, metrics } = plan;
  const textDimensions = query.dimensions.map((key) => DIMENSIONS.get(key)?.text === true);
  return rawRows.map((raw, r) => {
    const row: Record<string, unknown> = {};
    query.dimensions.forEach((key, i) => {
      const value = raw[`d${i}`];
      row[key] =
        value === null || value === undefined
          ? null
          : textDimensions[i]
            ? provenance(String(value), operationId, `$.rows[${firstIndex + r}].${key}`)
            : String(value);
    });
    metrics.forEach((metric, i) => {
      row[metric.key] = metricValue(
        metric,
        isRatio(metric.measure) ? [raw[`m${i}_n`], raw[`m${i}_d`]] : [raw[`m${i}`]],
      );
    });
    return row;
  });
}

export function metricDefinitions(plan: QueryPlan) {
  return plan.metrics.map((m) => ({ key: m.key, label: m.label, unit: m.unit, view: m.view }));
}
