import type { ReportResult } from '../types.js';
import { plainText } from '../dom.js';
import { bucketIndex } from './periods.js';

/**
 * Rows of the previous period matched with this period's: the same categories and, over time,
 * the same place in the period by the calendar (bucketIndex), so a bucket with no rows on either
 * side never shifts the others.
 */
type Row = Record<string, unknown>;

const timeColumn = (result: ReportResult, timeKeys: ReadonlySet<string>) =>
  result.columns.find((c) => timeKeys.has(c)) ?? null;

/** A row's place in its own result's range (null: no time column or no range). */
function placeOf(result: ReportResult, time: string | null): (row: Row) => number | null {
  const range = result.semanticQuery.timeRange;
  const grain = result.semanticQuery.timeGrain;
  return (row) => (time && range ? bucketIndex(plainText(row[time]), grain, range) : null);
}

/** The previous period's row for each of this period's rows, or undefined where it has none. */
export function previousRowOf(
  result: ReportResult,
  previous: ReportResult,
  timeKeys: ReadonlySet<string>,
): (row: Row) => Row | undefined {
  const time = timeColumn(result, timeKeys);
  const categories = result.columns.filter(
    (c) => c !== time && !result.semanticQuery.metrics.includes(c),
  );
  const key = (row: Row, place: number | null) =>
    JSON.stringify([...categories.map((c) => plainText(row[c])), place]);
  const nowPlace = placeOf(result, time);
  const thenPlace = placeOf(previous, time);
  const before = new Map(previous.rows.map((row) => [key(row, thenPlace(row)), row]));
  return (row) => before.get(key(row, nowPlace(row)));
}

/** The previous period's row at the place of a bucket of this period (one series over time). */
export function previousAtBucket(
  result: ReportResult,
  previous: ReportResult,
  time: string,
): (start: string) => Row | undefined {
  const thenPlace = placeOf(previous, time);
  const byPlace = new Map(previous.rows.map((row) => [thenPlace(row), row]));
  const range = result.semanticQuery.timeRange;
  const grain = result.semanticQuery.timeGrain;
  return (start) => (range ? byPlace.get(bucketIndex(start, grain, range)) : undefined);
}
