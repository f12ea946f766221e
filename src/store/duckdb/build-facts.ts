import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from './duckdb-module.js';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createTableSql } from '../dialect.js';
import type { FactSnapshot, FactSource } from '../store.js';
import { stampOf } from '../store.js';
import { baseType, columnNames, type Table } from '../table.js';
import { COLUMNAR_TABLES } from './columnar-tables.js';
import { duckdbDialect } from './duckdb-dialect.js';
import { duckdbConfig, FACTS_META, utcConnection, type DuckdbSettings } from './duckdb-facts.js';
import { wholeTableSql } from './fact-export.js';
import { ensureRollups } from './rollup-tables.js';
import { basePath, partialPath, removeStale } from './facts-files.js';

/**
 * Lines of CSV read from the row store per page. SQLite reads a page synchronously, on the
 * server's thread when the server brings its copy up to date: 5,000 rows hold it 10–40 ms
 * (20,000 held it up to 250 ms on a busy machine, and a sign-in's eight requests each waited
 * behind one: performance.md, the open-internet attack 3).
 */
export const EXPORT_PAGE = 5_000;

/** Rows loaded into DuckDB per CSV file: bounds the memory its reader and inserts take. */
const LOAD_ROWS = 1_000_000;

/** A path inside a SQL string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Writes the next pages of CSV lines to a file until it holds `limit` rows or the lines end;
 * returns the rows written (0 at the end).
 */
export async function exportSome(
  pages: AsyncIterator<string[]>,
  file: string,
  limit = LOAD_ROWS,
): Promise<number> {
  const out = createWriteStream(file);
  // A file that cannot be opened or written (no room, a size limit) fails the export, not the process.
  let failure: Error | null = null;
  out.on('error', (error) => (failure ??= error));
  let rows = 0;
  try {
    while (rows < limit && failure === null) {
      const next = await pages.next();
      if (next.done) break;
      rows += next.value.length;
      if (!out.write(`${next.value.join('\n')}\n`)) await once(out, 'drain');
      // A turn of the event loop between pages: requests that came meanwhile are answered.
      else await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    out.end();
    if (!out.closed) await once(out, 'close').catch(() => {});
  }
  if (failure) throw failure;
  return rows;
}

/** DuckDB's CSV reader set to read exactly what the export wrote, nothing guessed. */
export function readCsvSql(table: Table, file: string): string {
  const columns = columnNames(table)
    .map((c) => `${literal(c)}: ${literal(duckdbDialect.columnType(baseType(table.columns[c])))}`)
    .join(', ');
  return (
    `SELECT * FROM read_csv(${literal(file)}, header = false, ` +
    `delim = ',', quote = '"', escape = '"', nullstr = '', allow_quoted_nulls = false, ` +
    `auto_detect = false, columns = {${columns}})`
  );
}

/**
 * Streams the rows of a SELECT of CSV lines into a DuckDB table, a million rows a file through
 * two scratch CSV files (`csv`.0 and .1) in turn: while DuckDB reads one on its own threads, the
 * row store's next rows are written to the other. Returns how many rows.
 */
export async function loadLines(
  connection: DuckDBConnection,
  table: Table,
  lines: AsyncIterable<string[]>,
  csv: string,
): Promise<number> {
  const pages = lines[Symbol.asyncIterator]();
  const files = [`${csv}.0`, `${csv}.1`];
  let reading: Promise<unknown> | null = null;
  let total = 0;
  try {
    for (let turn = 0; ; turn = 1 - turn) {
      const written = await exportSome(pages, files[turn]);
      await reading;
      reading = null;
      if (written === 0) return total;
      reading = connection.run(`INSERT INTO ${table.name} ${readCsvSql(table, files[turn])}`);
      total += written;
    }
  } finally {
    await reading?.catch(() => {});
    await pages.return?.();
    for (const file of files) rmSync(file, { force: true });
  }
}

export interface BuiltFacts {
  stamp: string;
  path: string;
  /** Rows copied per table; empty when a copy of that version already existed. */
  rows: Record<string, number>;
  ms: number;
}

/** Writes every columnar table of one snapshot into a new DuckDB file at `path`. */
async function writeCopy(
  snapshot: FactSnapshot,
  path: string,
  settings: DuckdbSettings,
): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  const instance = await (
    await duckdb()
  ).DuckDBInstance.create(path, duckdbConfig(settings, 'build'));
  try {
    const connection = await utcConnection(instance);
    for (const copy of COLUMNAR_TABLES) {
      await connection.run(createTableSql(duckdbDialect, copy.table));
      const lines = snapshot.lines(wholeTableSql(copy), [], EXPORT_PAGE);
      rows[copy.table.name] = await loadLines(connection, copy.table, lines, `${path}.csv`);
    }
    await ensureRollups(connection);
    await connection.run(FACTS_META);
    await connection.run('INSERT INTO facts_meta VALUES (?, ?)', [
      snapshot.version.epoch,
      snapshot.version.version,
    ]);
    await connection.run('CHECKPOINT');
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
  return rows;
}

/**
 * Writes a whole columnar copy (a base, facts-files.ts) of the report facts from one snapshot of
 * the row store into `dir`: each table of COLUMNAR_TABLES exported as CSV (a page at a time, a
 * million rows a file, in bounded memory) and read by DuckDB's CSV reader, its rollups
 * (rollup-tables.ts) summed from those tables, then the data version
 * the snapshot held. Written under a temporary name and renamed into place, so a reader sees a
 * whole copy or none. Older bases, and files abandoned by processes that are gone, are removed.
 */
export async function buildColumnarFacts(
  source: FactSource,
  dir: string,
  settings: DuckdbSettings & { force?: boolean } = {},
): Promise<BuiltFacts> {
  const started = performance.now();
  mkdirSync(dir, { recursive: true });
  return source.factSnapshot(async (snapshot) => {
    const path = basePath(dir, snapshot.version);
    const stamp = stampOf(snapshot.version);
    if (existsSync(path) && !settings.force) return { stamp, path, rows: {}, ms: 0 };
    const partial = partialPath(dir, 'base');
    try {
      const rows = await writeCopy(snapshot, partial, settings);
      renameSync(partial, path);
      removeStale(dir, path);
      return { stamp, path, rows, ms: Math.round(performance.now() - started) };
    } finally {
      for (const leftover of [partial, `${partial}.wal`, `${partial}.csv`])
        rmSync(leftover, { force: true });
    }
  });
}
