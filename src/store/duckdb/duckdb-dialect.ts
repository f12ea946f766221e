import { onConflictUpsert, type Dialect } from '../dialect.js';

/**
 * DuckDB, for the columnar copy of the report facts: `?` placeholders, VARCHAR compared by its
 * UTF-8 bytes (code-point order, as the row stores), no keys. Dates are ISO text as in the row
 * stores; times are read in UTC (every connection sets TimeZone). TRY_CAST keeps a value that is
 * not a timestamp NULL, as SQLite's julianday does.
 */
export const duckdbDialect: Dialect = {
  name: 'duckdb',
  columnType: (type) => (type === 'text' ? 'VARCHAR' : type.toUpperCase()),
  tableOptions: () => '',
  placeholders: (sql) => sql,
  params: (params) => params as unknown[],
  upsert: onConflictUpsert,
  keys: false,
  textPosition: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  scratchTable: (name, body) => [`CREATE OR REPLACE TEMP TABLE ${name} ${body}`],
  isoWeekStart: (d) => `strftime(date_trunc('week', TRY_CAST(${d} AS DATE)), '%Y-%m-%d')`,
  daysBetween: (a, b) =>
    `((epoch(TRY_CAST(${b} AS TIMESTAMPTZ)) - epoch(TRY_CAST(${a} AS TIMESTAMPTZ))) / 86400.0)`,
  real: (x) => `CAST(${x} AS DOUBLE)`,
  codePointOrder: (x) => x,
};
