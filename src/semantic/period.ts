import type { Period, TimeRange } from './query-schema.js';

/** ISO date of a UTC calendar day given as year, month (0-based, may overflow) and day. */
function isoDate(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month, day)).toISOString().slice(0, 10);
}

/** First and last day of the `months`-long period starting at (year, month). */
function span(year: number, month: number, months: number): TimeRange {
  return { from: isoDate(year, month, 1), to: isoDate(year, month + months, 0) };
}

/**
 * Resolves a calendar period (never fiscal) against today's UTC date (SPEC "The period object").
 * A quarter without a year is the most recent such quarter that has already started.
 */
export function resolvePeriod(period: Period, today: Date): TimeRange {
  const year = today.getUTCFullYear();
  const month = today.getUTCMonth();
  if (period.kind === 'relative') {
    if (period.unit === 'month') return span(year, month + period.offset, 1);
    if (period.unit === 'quarter')
      return span(year, Math.floor(month / 3) * 3 + 3 * period.offset, 3);
    return span(year + period.offset, 0, 12);
  }
  const startMonth = (period.quarter - 1) * 3;
  const startYear = period.year ?? (startMonth <= month ? year : year - 1);
  return span(startYear, startMonth, 3);
}
