import type { Table } from '../table.js';

/**
 * Period zones (DESIGN §4.15, docs/performance.md#list-filters): for each day on which records
 * of a table with periods were created, the earliest period start and the latest period end among
 * them. A period filter asks which days can hold a record it keeps, and the page walks its own
 * index (creation order) between the first and the last such day only: records are created close
 * to their periods, so the walk starts where the kept records start instead of scanning the
 * history before them, and nothing is sorted.
 *
 * Zones are a bound, never an answer: the page still applies the period's own conditions, so a
 * zone wider than its records (a record deleted, or moved by an upsert) costs a longer walk, never
 * a wrong page. The load writer widens them with every batch of timesheets or invoices it writes
 * (seeds and imports: the only writes of these tables), in the load's transaction, one statement
 * per day the batch touches. Rows written by other means (by hand, or by a version of vms-read
 * from before the zones) are taken in by `facts refresh`, which rebuilds the zones with the
 * report facts. (Row triggers caught every write, but an UPDATE trigger on timesheets, even one
 * whose body did nothing, made a load's upserts of them 1.5 times slower on SQLite:
 * bench/filter-load-cost.mjs.)
 */
export const ZONED_TABLES = ['timesheets', 'invoices'] as const;

export const PERIOD_ZONES_TABLE: Table = {
  name: 'period_zones',
  columns: {
    table_name: 'text!',
    workspace_id: 'text!',
    created_day: 'text!',
    first_period_start: 'text!',
    last_period_end: 'text!',
  },
  primaryKey: ['table_name', 'workspace_id', 'created_day'],
  clustered: true,
};

const CREATED_DAY = 'substr(created_at, 1, 10)';
const ZONE_COLUMNS = 'table_name, workspace_id, created_day, first_period_start, last_period_end';

/** The zones of the records already stored (the migration that adds the table). */
export const FILL_PERIOD_ZONES = ZONED_TABLES.map(
  (table) =>
    `INSERT INTO period_zones (${ZONE_COLUMNS}) SELECT '${table}', workspace_id, ${CREATED_DAY},` +
    ` MIN(period_start), MAX(period_end) FROM ${table} GROUP BY workspace_id, ${CREATED_DAY}`,
);

/** A zone given is added, or widens the stored one to take it in (a zone never narrows). */
const WIDENED =
  ` ON CONFLICT (table_name, workspace_id, created_day) DO UPDATE SET` +
  ` first_period_start = CASE WHEN excluded.first_period_start < period_zones.first_period_start` +
  ` THEN excluded.first_period_start ELSE period_zones.first_period_start END,` +
  ` last_period_end = CASE WHEN excluded.last_period_end > period_zones.last_period_end` +
  ` THEN excluded.last_period_end ELSE period_zones.last_period_end END` +
  ` WHERE excluded.first_period_start < period_zones.first_period_start` +
  ` OR excluded.last_period_end > period_zones.last_period_end`;

const WIDEN_ZONE = `INSERT INTO period_zones (${ZONE_COLUMNS}) VALUES (?, ?, ?, ?, ?)${WIDENED}`;

/**
 * The zones of the rows `source` selects (a query of a zoned table's `workspace_id`,
 * `created_at`, `period_start` and `period_end`), widened in one statement: the staged import's
 * (load/staging.ts) counterpart of `widenPeriodZones`.
 */
export const widenZonesOf = (table: string, source: string): string =>
  `INSERT INTO period_zones (${ZONE_COLUMNS}) SELECT '${table}', workspace_id, ${CREATED_DAY},` +
  ` MIN(period_start), MAX(period_end) FROM (${source}) rows GROUP BY workspace_id, ${CREATED_DAY}` +
  WIDENED;

export const isZoned = (table: string): boolean =>
  (ZONED_TABLES as readonly string[]).includes(table);

interface ZonedRow {
  workspace_id?: unknown;
  created_at?: unknown;
  period_start?: unknown;
  period_end?: unknown;
}

/** Widens the zones of the days on which `rows` (as written, every column present) were created. */
export async function widenPeriodZones(
  run: (sql: string, params: unknown[]) => Promise<unknown>,
  table: string,
  rows: readonly ZonedRow[],
): Promise<void> {
  const zones = new Map<string, [string, string, string, string, string]>();
  for (const row of rows) {
    const workspace = String(row.workspace_id);
    const day = String(row.created_at).slice(0, 10);
    const start = String(row.period_start);
    const end = String(row.period_end);
    const key = `${workspace}\u0000${day}`;
    const zone = zones.get(key);
    if (!zone) zones.set(key, [table, workspace, day, start, end]);
    else {
      if (start < zone[3]) zone[3] = start;
      if (end > zone[4]) zone[4] = end;
    }
  }
  for (const zone of zones.values()) await run(WIDEN_ZONE, zone);
}
