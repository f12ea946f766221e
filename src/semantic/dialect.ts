/**
 * What differs between the SQL of SQLite and PostgreSQL for reports, as small functions over
 * SQL fragments. Everything else in the compiler is shared.
 */
export interface SqlDialect {
  name: 'sqlite' | 'postgres';
  /** ISO date (YYYY-MM-DD text) of the Monday starting the ISO week of a date expression. */
  isoWeekStart(dateSql: string): string;
  /** Days (fractional) from one ISO date or timestamp text to another. */
  daysBetween(fromSql: string, toSql: string): string;
  /** A floating-point value, for dividing. */
  real(sql: string): string;
  /** Text compared in code-point order. */
  codePointOrder(sql: string): string;
}

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  isoWeekStart: (d) =>
    `date(${d}, '-' || ((CAST(strftime('%w', ${d}) AS INTEGER) + 6) % 7) || ' days')`,
  daysBetween: (a, b) => `(julianday(${b}) - julianday(${a}))`,
  real: (x) => `CAST(${x} AS REAL)`,
  // SQLite's default BINARY collation compares UTF-8 bytes: code-point order already.
  codePointOrder: (x) => x,
};

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  isoWeekStart: (d) => `to_char(date_trunc('week', (${d})::date), 'YYYY-MM-DD')`,
  daysBetween: (a, b) =>
    `(EXTRACT(EPOCH FROM ((${b})::timestamptz - (${a})::timestamptz)) / 86400.0)`,
  real: (x) => `CAST(${x} AS DOUBLE PRECISION)`,
  codePointOrder: (x) => `${x} COLLATE "C"`,
};
