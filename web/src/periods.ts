/**
 * Calendar arithmetic for the dashboard: the buckets a time grain makes (a bucket is named by its
 * first day), whether a bucket is complete, and the period before a date range (for "compare
 * with the previous period"). All dates are ISO `YYYY-MM-DD` in UTC, as the API gives them.
 */
export interface DateRange {
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;
const parse = (date: string) => Date.parse(`${date}T00:00:00Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ymd = (date: string) => date.split('-').map(Number) as [number, number, number];
const utc = (year: number, month: number, day: number) => iso(Date.UTC(year, month, day));

export const addDays = (date: string, days: number) => iso(parse(date) + days * DAY_MS);

/** The last day of the bucket that starts on `start` at a grain (none: the day itself). */
export function bucketEnd(start: string, grain: string | null | undefined): string {
  const [y, m, d] = ymd(start);
  switch (grain) {
    case 'week':
      return addDays(start, 6);
    case 'month':
      return utc(y, m, 0);
    case 'quarter':
      return utc(y, m + 2, 0);
    case 'year':
      return utc(y + 1, 0, 0);
    default:
      return utc(y, m - 1, d);
  }
}

/** Today's date in UTC, as the server resolves periods. */
export const today = () => iso(Date.now());

/**
 * A bucket is incomplete when part of it lies outside the query's range (a range that starts or
 * ends inside it) or it has not ended yet (this month so far).
 */
export function isIncomplete(
  start: string,
  grain: string | null | undefined,
  range: DateRange | null | undefined,
  now = today(),
): boolean {
  const end = bucketEnd(start, grain);
  if (end >= now) return true;
  return !!range && (start < range.from || end > range.to);
}

const isMonthStart = (date: string) => ymd(date)[2] === 1;
const isMonthEnd = (date: string) => addDays(date, 1).endsWith('-01');

/**
 * The period before a range, of the same length: whole calendar months go back by as many
 * months (a quarter before a quarter, a year before a year); any other range by its days.
 */
export function previousRange(range: DateRange): DateRange {
  if (isMonthStart(range.from) && isMonthEnd(range.to)) {
    const [fy, fm] = ymd(range.from);
    const [ty, tm] = ymd(range.to);
    const months = (ty - fy) * 12 + (tm - fm) + 1;
    return { from: utc(fy, fm - 1 - months, 1), to: utc(fy, fm - 1, 0) };
  }
  const days = Math.round((parse(range.to) - parse(range.from)) / DAY_MS) + 1;
  return { from: addDays(range.from, -days), to: addDays(range.from, -1) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A bucket as people name it: "Apr 2026", "Q2 2026", "2026", "week of 2026-04-06", a date. */
export function bucketLabel(start: string, grain: string | null | undefined): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(start)) return start;
  const [y, m] = ymd(start);
  switch (grain) {
    case 'month':
      return `${MONTHS[m - 1]} ${y}`;
    case 'quarter':
      return `Q${Math.floor((m - 1) / 3) + 1} ${y}`;
    case 'year':
      return String(y);
    case 'week':
      return `week of ${start}`;
    default:
      return start;
  }
}
