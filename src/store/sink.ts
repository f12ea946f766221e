import type { DataTable } from './schema.js';

/** A row as stored: column name → value (string, number, or null; booleans as 0/1). */
export type Row = Record<string, string | number | null>;

/**
 * Where generated rows go. The generator calls `insert` with batches in DATA_TABLES dependency
 * order per workspace and awaits each call, so a store can write with back-pressure and the
 * generator never holds a whole table in memory.
 */
export interface SeedSink {
  insert(table: DataTable, rows: Row[]): Promise<void>;
}
