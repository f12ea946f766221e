import { onConflictUpsert, type Dialect } from '../dialect.js';

/** SQLite: `?` placeholders and values bind as they are; clustered tables are WITHOUT ROWID. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  columnType: (type) => type.toUpperCase(),
  tableOptions: (table) => (table.clustered ? ' WITHOUT ROWID' : ''),
  placeholders: (sql) => sql,
  params: (params) => params as unknown[],
  upsert: onConflictUpsert,
  keys: true,
  textPosition: (haystack, needle) => `instr(${haystack}, ${needle})`,
  scratchTable: (name, body) => [
    `CREATE TEMP TABLE IF NOT EXISTS ${name} ${body}`,
    `DELETE FROM temp.${name}`,
  ],
  isoWeekStart: (d) =>
    `date(${d}, '-' || ((CAST(strftime('%w', ${d}) AS INTEGER) + 6) % 7) || ' days')`,
  daysBetween: (a, b) => `(julianday(${b}) - julianday(${a}))`,
  real: (x) => `CAST(${x} AS REAL)`,
  // SQLite's default BINARY collation compares UTF-8 bytes: code-point order already.
  codePointOrder: (x) => x,
};
