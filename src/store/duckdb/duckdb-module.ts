/**
 * DuckDB's native module, loaded when a columnar copy is first opened or built: a command that
 * never reads one (`audit worker`, `token create`, …) starts without it (about a tenth of a
 * second of Node's start on this machine).
 */
export const duckdb = (): Promise<typeof import('./duckdb-instance.js')> =>
  import('./duckdb-instance.js');
