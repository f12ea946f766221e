import type { ListCondition } from '../store.js';
import { isZoned } from './period-zones.js';

// The read side of period zones (period-zones.ts has what they are and how they are kept): the
// creation days a period filter's page walks.

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown> | null>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The day after a `YYYY-MM-DD` day, or null for anything else (and after 9999-12-31). */
export function dayAfter(day: string): string | null {
  if (!DAY.test(day)) return null;
  const next = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(next.getTime())) return null;
  next.setUTCDate(next.getUTCDate() + 1);
  const text = next.toISOString().slice(0, 10);
  return DAY.test(text) && text > day ? text : null;
}

const periodBounds = (conditions: readonly ListCondition[]) => ({
  from: conditions.find((c) => c.is === 'atLeast' && c.column === 'period_end'),
  to: conditions.find((c) => c.is === 'atMost' && c.column === 'period_start'),
});

/** Whether a list's page is bounded by period zones: a period filter on a table that has them. */
export function hasPeriodBound(table: string, conditions: readonly ListCondition[]): boolean {
  const { from, to } = periodBounds(conditions);
  return isZoned(table) && (from !== undefined || to !== undefined);
}

/**
 * A list's conditions with the creation days a period filter can keep added as bounds on
 * `created_at`; the conditions unchanged without a period filter or on a table without zones;
 * null when no zone overlaps the period (no record can be kept).
 *
 * A record created on day D has a created_at beginning with D, so it sorts at or after D and
 * before the day after D in code-point order, whatever follows the date (both stores compare
 * text that way).
 */
export async function withCreationBounds(
  get: Query,
  table: string,
  workspaceId: string,
  conditions: readonly ListCondition[],
): Promise<readonly ListCondition[] | null> {
  if (!hasPeriodBound(table, conditions)) return conditions;
  const { from, to } = periodBounds(conditions);
  const zone = await get(
    `SELECT MIN(created_day) AS first_day, MAX(created_day) AS last_day FROM period_zones` +
      ` WHERE table_name = ? AND workspace_id = ?` +
      (from ? ' AND last_period_end >= ?' : '') +
      (to ? ' AND first_period_start <= ?' : ''),
    [table, workspaceId, ...(from ? [from.value] : []), ...(to ? [to.value] : [])],
  );
  const first = zone?.first_day as string | null | undefined;
  const last = zone?.last_day as string | null | undefined;
  if (!first || !last) return null;
  const end = dayAfter(last);
  return [
    ...conditions,
    { is: 'atLeast', column: 'created_at', value: first },
    ...(end ? [{ is: 'below', column: 'created_at', value: end } as const] : []),
  ];
}
