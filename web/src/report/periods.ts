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

const MONTHS_IN: Record<string, number> = { month: 1, quarter: 3, year: 12 };
const daysBetween = (from: string, to: string) => Math.round((parse(to) - parse(from)) / DAY_MS);

/** The first day of the bucket holding `date` at a grain (weeks start on Monday, as the server's). */
export function bucketStart(date: string, grain: string | null | undefined): string {
  const [y, m, d] = ymd(date);
  const months = MONTHS_IN[grain ?? ''];
  if (months) return utc(y, Math.floor((m - 1) / months) * months, 1);
  if (grain === 'week') return addDays(date, -((new Date(parse(date)).getUTCDay() + 6) % 7));
  return utc(y, m - 1, d);
}

/**
 * Where a bucket falls in its range, counted by the calendar from the range's first bucket (0 for
 * the bucket holding `range.from`), so the same place in two periods has the same number whatever
 * buckets have no rows: the third week of a quarter is 2 in this quarter and the last.
 */
export function bucketIndex(
  start: string,
  grain: string | null | undefined,
  range: DateRange,
): number {
  const first = bucketStart(range.from, grain);
  const own = bucketStart(start, grain);
  const months = MONTHS_IN[grain ?? ''];
  if (months) {
    const [fy, fm] = ymd(first);
    const [y, m] = ymd(own);
    return ((y - fy) * 12 + (m - fm)) / months;
  }
  return daysBetween(first, own) / (grain === 'week' ? 7 : 1);
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

/**
 * The period to compare a range with. A range that is over: the one before it (previousRange). A
 * range not over yet (this month so far): the same number of days from the start of the one
 * before, so a period so far is set against the same stretch of the last, never a whole one.
 */
export function comparableRange(
  range: DateRange,
  now = today(),
): { range: DateRange; sameDays: boolean } {
  const before = previousRange(range);
  if (range.to < now) return { range: before, sameDays: false };
  const elapsed = Math.max(0, daysBetween(range.from, now));
  const to = addDays(before.from, elapsed);
  return { range: { from: before.from, to: to < before.to ? to : before.to }, sameDays: true };
}

/** True when a range is not over yet: its last day is today or later. */
export const isOngoing = (range: DateRange | null | undefined, now = today()) =>
  !!range && range.to >= now;

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
