/**
 * What the report compiler needs from a database's SQL, as small functions over SQL fragments;
 * everything else in the compiler is shared. Each store's Dialect (src/store/dialect.ts)
 * implements it.
 */
export interface SqlDialect {
  name: string;
  /** ISO date (YYYY-MM-DD text) of the Monday starting the ISO week of a date expression. */
  isoWeekStart(dateSql: string): string;
  /** Days (fractional) from one ISO date or timestamp text to another. */
  daysBetween(fromSql: string, toSql: string): string;
  /** A floating-point value, for dividing. */
  real(sql: string): string;
  /** Text compared in code-point order. */
  codePointOrder(sql: string): string;
}
