// DuckDB's entry, named statically so that every way of loading this module finds it: Node's
// own (which reads the package's CommonJS exports by name) and the command's bundle (where a
// dynamic import of a CommonJS package keeps its default export alone; scripts/build-cli.mjs).
export { DuckDBInstance } from '@duckdb/node-api';
