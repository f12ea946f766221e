/**
 * The two rewrites that turn the shared SQL into PostgreSQL's: `?` placeholders numbered `$1…`,
 * and DDL whose TEXT columns use the "C" collation (code-point order, as SQLite's BINARY).
 * The shared SQL never contains `?` inside a string literal, which the numbering relies on.
 */
export function toPostgresPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export function postgresDdl(ddl: string): string {
  // WITHOUT ROWID is SQLite's clustering hint; PostgreSQL gets the same primary key as an index.
  return ddl.replace(/\bTEXT\b/g, 'TEXT COLLATE "C"').replace(/\)\s*WITHOUT ROWID/g, ')');
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
