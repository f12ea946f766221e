/**
 * The guaranteed edge cases (DESIGN §7). Random shapes alone cannot promise that a tiny workspace
 * holds a 1,000-entry timesheet or a credit note, so the first workers of every workspace play
 * fixed roles, engaged for the whole span, and a few months are singled out. Everything else about
 * them (rates, names within their kind, timestamps) is still drawn from the seed.
 *
 *  - veteran: hourly, consolidated supplier; in the giant month its timesheets carry the forced
 *    correction (reversal + restatement) and on-behalf entries, and it files four expenses whose
 *    categories are the unusual ones, one recorded in another currency (a currency-mismatch line).
 *  - giant: hourly, a second consolidated supplier; in the giant month it has one month-long
 *    timesheet of 10-minute punches (>1,000 entries), so the consolidated invoice of that month
 *    has >1,000 lines from two suppliers.
 *  - steady: per-worker invoices every month; in the giant month its invoice gets a credit note, the
 *    month before it is voided, and in the last invoiced month it is held as a draft. No email.
 *    One giant-month timesheet is rejected.
 *  - daily, monthly: the other entry modes, billed in the other two currencies. One of the daily
 *    worker's giant-month timesheets is never decided (still `submitted`).
 * Their near-daily hourly work over 36 months also puts time entries on >500 distinct dates.
 */
import { DAY_MS, HOUR_MS, type Calendar } from './calendar.js';
import type { UnusualKind } from './people-text.js';

export type SpecialRole = 'veteran' | 'giant' | 'steady' | 'daily' | 'monthly';
export type EntryMode = 'hourly' | 'daily' | 'monthly';

export interface RoleSpec {
  role: SpecialRole;
  mode: EntryMode;
  /** Supplier index the worker is placed with (the special suppliers below). */
  supplier: number;
  nameKind: UnusualKind;
  hasEmail: boolean;
}

/** Worker index i < SPECIAL_WORKERS.length plays SPECIAL_WORKERS[i]. */
export const SPECIAL_WORKERS: readonly RoleSpec[] = [
  { role: 'veteran', mode: 'hourly', supplier: 0, nameKind: 'instruction', hasEmail: true },
  { role: 'giant', mode: 'hourly', supplier: 1, nameKind: 'emoji', hasEmail: true },
  { role: 'steady', mode: 'hourly', supplier: 2, nameKind: 'rtl', hasEmail: false },
  { role: 'daily', mode: 'daily', supplier: 3, nameKind: 'zero_width', hasEmail: true },
  { role: 'monthly', mode: 'monthly', supplier: 4, nameKind: 'rtl', hasEmail: true },
];

export type GroupingRule = 'per_worker' | 'per_org_unit' | 'consolidated';

export interface SupplierRole {
  rule: GroupingRule;
  currency: string;
  nameKind: UnusualKind | null;
}

/** Supplier index i < SPECIAL_SUPPLIERS.length has these fixed traits; later ones are drawn. */
export const SPECIAL_SUPPLIERS: readonly SupplierRole[] = [
  // Consolidated billing is in USD only, so every consolidated invoice holds both of these.
  { rule: 'consolidated', currency: 'USD', nameKind: 'instruction' },
  { rule: 'consolidated', currency: 'USD', nameKind: 'emoji' },
  { rule: 'per_worker', currency: 'USD', nameKind: 'rtl' },
  { rule: 'per_org_unit', currency: 'EUR', nameKind: 'zero_width' },
  { rule: 'per_org_unit', currency: 'GBP', nameKind: null },
];

export const CURRENCIES = ['USD', 'EUR', 'GBP'] as const;

/** Punches per day in the giant timesheet are sized so the month holds more than this. */
export const GIANT_MIN_ENTRIES = 1010;

/** Day offsets inside the giant month: the weeks holding them are whole weeks (days 8-14 etc.). */
export const CORRECTION_DAY_OFFSET = 9;
export const ON_BEHALF_DAY_OFFSET = 16;
/** The steady worker's timesheet holding this day is rejected; the daily worker's stays pending. */
export const PENDING_DAY_OFFSET = 22;
export const EXPENSE_DAY_OFFSETS = [2, 4, 6, 8];

/**
 * Invoices for a month are generated 14 days after it ends: late enough that every timesheet and
 * expense of the month has been decided (at most ~11 days after the period) and any correction made.
 */
export function invoiceRunMs(cal: Calendar, month: number): number {
  return cal.months[month].endMs + 14 * DAY_MS + 2 * HOUR_MS;
}

export interface EdgeMonths {
  /** Month of the giant timesheet, the forced correction, credit note and mismatch expense. */
  giant: number;
  /** Month whose steady-worker invoice is void. */
  voided: number;
  /**
   * First invoiced month: the first month of the span unless the span starts after its 1st. A
   * partial first month may hold no workday, and then no consolidated invoice with two suppliers.
   */
  firstRun: number;
  /** Last month whose invoices exist by asOf: its steady-worker invoice stays a draft. */
  lastRun: number;
}

export function edgeMonths(cal: Calendar): EdgeMonths {
  let lastRun = -1;
  for (const m of cal.months) if (invoiceRunMs(cal, m.index) <= cal.asOfEndMs) lastRun = m.index;
  // Six months before asOf's month: long since invoiced, yet recent enough to matter in reports.
  const giant = cal.months.length - 7;
  const firstRun = cal.months[0].firstDay === 0 && cal.dates[0] === cal.months[0].startDate ? 0 : 1;
  return { giant, voided: giant - 1, firstRun, lastRun };
}
