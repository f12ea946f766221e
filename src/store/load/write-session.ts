import type { Dialect } from '../dialect.js';
/** A row as the database returns it. */
type Row = Record<string, unknown>;

/**
 * One open write transaction, as the load writer uses it: the shared SQL (`?` placeholders) and
 * a bulk insert each store does its fastest way (SQLite: one prepared statement run per row;
 * PostgreSQL: COPY for new rows, multi-row INSERTs for upserts).
 */
export interface WriteSession {
  readonly dialect: Dialect;
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Inserts `rows` (values in `columns` order). With `conflictKey`, a row whose key is stored
   * replaces the stored row's other columns (`ignore`: leaves the stored row); without it, such
   * a row is an error.
   */
  insertRows(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly unknown[])[],
    conflictKey?: readonly string[],
    onConflict?: 'update' | 'ignore',
  ): Promise<void>;
}
