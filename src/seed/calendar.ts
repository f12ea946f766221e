/**
 * The time axis of a seed: the 36 months ending at `asOf`, addressed by day index (0 = first day of
 * the span) so that plans are plain integers and dates are formatted once. Timesheet periods are
 * Monday-to-Sunday weeks split at month ends ("split weeks"), so every timesheet falls inside the
 * one calendar month it is invoiced in.
 */
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

export interface Month {
  index: number;
  /** "YYYY-MM", used in invoice numbers. */
  label: string;
  /** First and last day index of the month inside the span (clipped at both ends of the span). */
  firstDay: number;
  lastDay: number;
  /** Calendar bounds of the whole month, used as invoice billing periods. */
  startDate: string;
  endDate: string;
  /** Last calendar day of the month in epoch ms (may lie after asOf for the current month). */
  endMs: number;
}

export interface WeekPeriod {
  startDay: number;
  endDay: number;
  month: number;
}

const HOLIDAYS = new Set(['01-01', '05-01', '07-04', '12-25', '12-26']);

/** Parses and checks a YYYY-MM-DD date; returns its epoch ms at 00:00 UTC. */
export function parseDate(value: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw new Error(`asOf must be a YYYY-MM-DD date, got ${JSON.stringify(value)}`);
  }
  return ms;
}

export class Calendar {
  readonly startMs: number;
  readonly days: number;
  /**
   * No timestamp may lie after it: 23:59:59.999 UTC of asOf, or the moment the seed runs when
   * that is earlier (a record stamped later the same day would refuse an operator's update
   * stamped now, DESIGN §4.11).
   */
  readonly asOfEndMs: number;
  readonly dates: string[] = [];
  /** 0 = Sunday ... 6 = Saturday. */
  readonly weekday: Uint8Array;
  readonly holiday: Uint8Array;
  readonly months: Month[] = [];
  readonly dayMonth: Int32Array;
  readonly weeks: WeekPeriod[] = [];
  readonly dayWeek: Int32Array;

  /** `nowMs`: the moment the seed runs; nothing is stamped after it. */
  constructor(
    readonly asOf: string,
    nowMs = Date.now(),
  ) {
    const asOfMs = parseDate(asOf);
    const d = new Date(asOfMs);
    // Same day 36 months back, plus one: exactly 36 months including asOf.
    this.startMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 36, d.getUTCDate()) + DAY_MS;
    this.days = Math.round((asOfMs - this.startMs) / DAY_MS) + 1;
    this.asOfEndMs = Math.min(asOfMs + DAY_MS - 1, nowMs);
    this.weekday = new Uint8Array(this.days);
    this.holiday = new Uint8Array(this.days);
    this.dayMonth = new Int32Array(this.days);
    this.dayWeek = new Int32Array(this.days);
    for (let day = 0; day < this.days; day++) {
      const ms = this.dayMs(day);
      const date = new Date(ms).toISOString().slice(0, 10);
      this.dates.push(date);
      this.weekday[day] = (Math.floor(ms / DAY_MS) + 4) % 7;
      this.holiday[day] = HOLIDAYS.has(date.slice(5)) ? 1 : 0;
      if (day === 0 || date.endsWith('-01')) this.months.push(this.monthAt(day, ms));
      this.dayMonth[day] = this.months.length - 1;
      // A new split week starts on Mondays and on the first of each month.
      if (day === 0 || this.weekday[day] === 1 || date.endsWith('-01')) {
        this.weeks.push({ startDay: day, endDay: day, month: this.months.length - 1 });
      }
      this.weeks[this.weeks.length - 1].endDay = day;
      this.dayWeek[day] = this.weeks.length - 1;
      this.months[this.months.length - 1].lastDay = day;
    }
  }

  private monthAt(day: number, ms: number): Month {
    const d = new Date(ms);
    const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    const last = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0);
    const startDate = new Date(first).toISOString().slice(0, 10);
    return {
      index: this.months.length,
      label: startDate.slice(0, 7),
      firstDay: day,
      lastDay: day,
      startDate,
      endDate: new Date(last).toISOString().slice(0, 10),
      endMs: last,
    };
  }

  dayMs(day: number): number {
    return this.startMs + day * DAY_MS;
  }

  /** Timestamp text, clamped to asOfEndMs so nothing is stamped in the future. */
  stamp(ms: number): string {
    return new Date(ms < this.asOfEndMs ? ms : this.asOfEndMs).toISOString();
  }

  isWeekend(day: number): boolean {
    const w = this.weekday[day];
    return w === 0 || w === 6;
  }
}
