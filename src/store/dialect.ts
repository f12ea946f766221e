import type { SqlDialect } from '../semantic/dialect.js';
import type { Migration } from './schema.js';
import { baseType, isNotNull, type Table } from './table.js';

/**
 * Everything that differs between the databases, one object per database: how the schema's
 * tables become DDL, how placeholders and parameters are bound, how a row is upserted, and the
 * report compiler's SQL fragments (SqlDialect). The shared SQL (resource reads, report facts,
 * the compiler's output) is written once with `?` placeholders and rendered by `placeholders`.
 * A new database is one of these plus one Store class (docs/architecture.md).
 */
export interface Dialect extends SqlDialect {
  /** The SQL type of a schema type (text compares in code-point order in every dialect). */
  columnType(type: 'text' | 'integer' | 'bigint'): string;
  /** What follows a CREATE TABLE's closing parenthesis (SQLite: WITHOUT ROWID when clustered). */
  tableOptions(table: Table): string;
  /** Query text with this database's placeholders for the shared SQL's `?` (none in literals). */
  placeholders(sql: string): string;
  /** Parameter values as this database can bind them. */
  params(params: readonly unknown[]): unknown[];
  /** Inserts a row, or replaces the non-key columns of the row with the same key. */
  upsert(table: string, columns: readonly string[], key: readonly string[]): string;
  /** False for a read-only analytical copy: its tables declare no keys (they only slow loading). */
  readonly keys: boolean;
  /**
   * Statements that give the open transaction an empty scratch table of its own, gone with the
   * connection (SQLite) or the transaction (PostgreSQL): `body` is the column list in parentheses.
   */
  scratchTable(name: string, body: string): string[];
  /**
   * Where `needle` first occurs in `haystack` (both text expressions), counted in characters from
   * 1, or 0 when it does not (the OData feed's `contains`).
   */
  textPosition(haystack: string, needle: string): string;
}

/** CREATE TABLE for one table in a dialect; a one-column primary key is declared on the column. */
export function createTableSql(dialect: Dialect, table: Table): string {
  const key = dialect.keys ? table.primaryKey : [];
  const single = key.length === 1 ? key[0] : null;
  const lines = Object.entries(table.columns).map(([name, type]) => {
    const constraints = [
      isNotNull(type) ? ' NOT NULL' : '',
      name === single ? ' PRIMARY KEY' : '',
      dialect.keys && table.unique?.includes(name) ? ' UNIQUE' : '',
    ].join('');
    return `  ${name} ${dialect.columnType(baseType(type))}${constraints}`;
  });
  if (key.length > 1) lines.push(`  PRIMARY KEY (${key.join(', ')})`);
  return `CREATE TABLE ${table.name} (\n${lines.join(',\n')}\n)${dialect.tableOptions(table)}`;
}

export function createIndexSql(table: Table): string[] {
  return Object.entries(table.indexes ?? {}).map(
    ([name, index]) =>
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${name} ON ${table.name} (${index.columns.join(', ')})`,
  );
}

/** A migration's SQL in a dialect: its first statements, each table with its indexes, the rest. */
export function migrationSql(dialect: Dialect, migration: Migration): string {
  if (migration.only !== undefined && migration.only !== dialect.name) return '';
  return [
    ...(migration.before ?? []),
    ...migration.tables.flatMap((table) => [
      createTableSql(dialect, table),
      ...createIndexSql(table),
    ]),
    ...migration.statements,
  ].join(';\n');
}

/**
 * `INSERT … VALUES (…), (…)` for `count` rows; with `conflictKey`, `ON CONFLICT … DO UPDATE` of
 * the other columns (or `DO NOTHING`: the stored row is kept), which SQLite and PostgreSQL both
 * speak.
 */
export function insertSql(
  table: string,
  columns: readonly string[],
  count: number,
  conflictKey?: readonly string[],
  onConflict: 'update' | 'ignore' = 'update',
): string {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  let sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array<string>(count).fill(tuple).join(', ')}`;
  if (conflictKey && onConflict === 'ignore')
    sql += ` ON CONFLICT (${conflictKey.join(', ')}) DO NOTHING`;
  else if (conflictKey) {
    const updates = columns
      .filter((c) => !conflictKey.includes(c))
      .map((c) => `${c} = excluded.${c}`);
    sql += ` ON CONFLICT (${conflictKey.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
  }
  return sql;
}

/** A one-row upsert. */
export function onConflictUpsert(
  table: string,
  columns: readonly string[],
  key: readonly string[],
): string {
  return insertSql(table, columns, 1, key);
}
