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
