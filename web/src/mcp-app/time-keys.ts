const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The time dimensions of a result when the catalog could not be read (a host that refuses the
 * view's own calls): those whose every value is a date. With the catalog, its time dimensions
 * decide, as on the page.
 */
export function guessedTimeKeys(result: ReportResult | { status: 'refused' }): Set<string> {
  if (result.status === 'refused') return new Set();
  const dimensions = result.semanticQuery.dimensions ?? [];
  return new Set(
    dimensions.filter(
      (key) =>
        result.rows.length > 0 &&
        result.rows.every((row) => row[key] === null || DATE.test(String(row[key]))),
    ),
  );
}
import type { ReportResult } from '../types.js';
