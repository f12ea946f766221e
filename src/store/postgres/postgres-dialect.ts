import { onConflictUpsert, type Dialect } from '../dialect.js';

/** `?` placeholders numbered `$1…`: the shared SQL never has `?` inside a string literal. */
function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * PostgreSQL text cannot hold U+0000, so no stored value contains it (the importer refuses it on
 * both stores). A parameter that does is therefore equal to no stored value and, in code-point
 * order, sits just above its text before the NUL: exactly where that text followed by U+0001
 * sits, short of a stored value beginning with the same text and U+0001. Sent that way, every
 * comparison the shared SQL makes (=, <>, IN, <=, >=) answers as SQLite answers for the NUL
 * itself, where PostgreSQL would otherwise refuse the query. One rule for every query and every
 * parameter: ids, saved-query ids and report filter values alike.
 */
export function toPostgresParams(params: readonly unknown[]): unknown[] {
  return params.map((value) =>
    typeof value === 'string' && value.includes('\u0000')
      ? `${value.slice(0, value.indexOf('\u0000'))}\u0001`
      : value,
  );
}

/**
 * PostgreSQL: `$n` placeholders, text in the "C" collation (code-point order, as SQLite's
 * BINARY), no clustering option (the primary key is an index), NUL-free text parameters.
 */
export const postgresDialect: Dialect = {
  name: 'postgres',
  columnType: (type) => (type === 'text' ? 'TEXT COLLATE "C"' : type.toUpperCase()),
  tableOptions: () => '',
  placeholders: numberedPlaceholders,
  params: toPostgresParams,
  upsert: onConflictUpsert,
  keys: true,
  textPosition: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  scratchTable: (name, body) => [`CREATE TEMP TABLE ${name} ${body} ON COMMIT DROP`],
  isoWeekStart: (d) => `to_char(date_trunc('week', (${d})::date), 'YYYY-MM-DD')`,
  daysBetween: (a, b) =>
    `(EXTRACT(EPOCH FROM ((${b})::timestamptz - (${a})::timestamptz)) / 86400.0)`,
  real: (x) => `CAST(${x} AS DOUBLE PRECISION)`,
  codePointOrder: (x) => `${x} COLLATE "C"`,
};
