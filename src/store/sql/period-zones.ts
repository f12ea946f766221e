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
 * a wrong page. Triggers widen them on every insert and update, whatever writes (seed, import,
 * a hand-run statement), so they cannot fall behind the records.
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
const WIDEN = (least: string, greatest: string) =>
  ` ON CONFLICT (table_name, workspace_id, created_day) DO UPDATE SET` +
  ` first_period_start = ${least}(period_zones.first_period_start, excluded.first_period_start),` +
  ` last_period_end = ${greatest}(period_zones.last_period_end, excluded.last_period_end)` +
  ` WHERE excluded.first_period_start < period_zones.first_period_start` +
  ` OR excluded.last_period_end > period_zones.last_period_end`;

/** The zones of the records already stored (the migration that adds the table). */
const FILL = ZONED_TABLES.map(
  (table) =>
    `INSERT INTO period_zones (${ZONE_COLUMNS}) SELECT '${table}', workspace_id, ${CREATED_DAY},` +
    ` MIN(period_start), MAX(period_end) FROM ${table} GROUP BY workspace_id, ${CREATED_DAY}`,
);

/** SQLite: a row trigger per table and event, each widening one zone. */
function sqliteTriggers(): string[] {
  return ZONED_TABLES.flatMap((table) =>
    (['INSERT', 'UPDATE OF created_at, period_start, period_end'] as const).map(
      (event) =>
        `CREATE TRIGGER ${table}_zone_${event.startsWith('INSERT') ? 'insert' : 'update'}` +
        ` AFTER ${event} ON ${table} BEGIN INSERT INTO period_zones (${ZONE_COLUMNS})` +
        ` VALUES ('${table}', NEW.workspace_id, substr(NEW.created_at, 1, 10), NEW.period_start,` +
        ` NEW.period_end)${WIDEN('min', 'max')}; END`,
    ),
  );
}

/**
 * PostgreSQL: a statement trigger per table and event over the statement's new rows (a
 * transition table), one grouped upsert however many rows a load writes. An upsert's inserted
 * rows reach the INSERT trigger, its updated rows the UPDATE trigger.
 */
function postgresTriggers(): string[] {
  return [
    `CREATE FUNCTION widen_period_zones() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN` +
      ` INSERT INTO period_zones (${ZONE_COLUMNS}) SELECT TG_TABLE_NAME, workspace_id,` +
      ` ${CREATED_DAY}, MIN(period_start), MAX(period_end) FROM changed` +
      ` GROUP BY workspace_id, ${CREATED_DAY}${WIDEN('LEAST', 'GREATEST')};` +
      ` RETURN NULL; END $$`,
    ...ZONED_TABLES.flatMap((table) =>
      (['INSERT', 'UPDATE'] as const).map(
        (event) =>
          `CREATE TRIGGER ${table}_zone_${event.toLowerCase()} AFTER ${event} ON ${table}` +
          ` REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION widen_period_zones()`,
      ),
    ),
  ];
}

/** What the migration that adds period zones runs after creating the table, per database. */
export function periodZoneStatements(dialect: 'sqlite' | 'postgres'): string[] {
  return [...FILL, ...(dialect === 'sqlite' ? sqliteTriggers() : postgresTriggers())];
}
