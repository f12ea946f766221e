/** A table described as data; each dialect renders it as DDL (src/store/schema.ts holds them). */
/** A column's type; `!` marks NOT NULL. */
export type ColumnType = 'text' | 'text!' | 'integer' | 'integer!' | 'bigint' | 'bigint!';

export interface Table {
  name: string;
  /** In storage order (INSERT … SELECT and the importer's column order rely on it). */
  columns: Record<string, ColumnType>;
  primaryKey: string[];
  /** Columns with a UNIQUE constraint of their own. */
  unique?: string[];
  /** Stored in primary-key order where the database can (SQLite: WITHOUT ROWID). */
  clustered?: boolean;
  indexes?: Record<string, { columns: string[]; unique?: boolean }>;
}

export const columnNames = (table: Table): string[] => Object.keys(table.columns);
export const isNotNull = (type: ColumnType): boolean => type.endsWith('!');
export const baseType = (type: ColumnType) =>
  type.replace('!', '') as 'text' | 'integer' | 'bigint';
