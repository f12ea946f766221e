import { DuckDBInstance } from '@duckdb/node-api';
import { once } from 'node:events';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { createTableSql } from '../dialect.js';
import type { FactSource } from '../store.js';
import { baseType, columnNames, type Table } from '../table.js';
import { COLUMNAR_TABLES } from './columnar-tables.js';
import { duckdbDialect } from './duckdb-dialect.js';
import { duckdbConfig, utcConnection, type DuckdbSettings } from './duckdb-facts.js';

/** The data stamp changed while the copy was being written: the copy is discarded. */
export class StampMovedError extends Error {
  constructor() {
    super('the data changed while the columnar copy was being written; run it again');
  }
}

/** The file holding the columnar copy of the data at `stamp`. */
export function factsPath(dir: string, stamp: string): string {
  return join(dir, `${stamp}.duckdb`);
}

/** Lines of CSV read from the row store per page. */
const PAGE = 20_000;

/** A path inside a SQL string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Rows loaded into DuckDB per CSV file: bounds the memory its reader and inserts take. */
const LOAD_ROWS = 1_000_000;

/**
 * Writes the next pages of a table's rows to a CSV file until it holds LOAD_ROWS rows or the
 * table ends; returns the rows written (0 at the end).
 */
async function exportSome(pages: AsyncIterator<string[]>, file: string): Promise<number> {
  const out = createWriteStream(file);
  let rows = 0;
  try {
    while (rows < LOAD_ROWS) {
      const next = await pages.next();
      if (next.done) break;
      rows += next.value.length;
      if (!out.write(`${next.value.join('\n')}\n`)) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return rows;
}

/** DuckDB's CSV reader set to read exactly what exportSome wrote, nothing guessed. */
function readCsvSql(table: Table, file: string): string {
  const columns = columnNames(table)
    .map((c) => `${literal(c)}: ${literal(duckdbDialect.columnType(baseType(table.columns[c])))}`)
    .join(', ');
  return (
    `INSERT INTO ${table.name} SELECT * FROM read_csv(${literal(file)}, header = false, ` +
    `delim = ',', quote = '"', escape = '"', nullstr = '', allow_quoted_nulls = false, ` +
    `auto_detect = false, columns = {${columns}})`
  );
}

/** A partial copy untouched this long was abandoned (its writer died): it is removed. */
const ABANDONED_MS = 60 * 60 * 1000;

/**
 * Removes copies of older stamps and partial copies abandoned by a writer that died (never the
 * copy just written, nor one being written now).
 */
function removeOthers(dir: string, keep: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === keep) continue;
    if (name.endsWith('.duckdb') || name.endsWith('.duckdb.wal')) rmSync(path, { force: true });
    else if (
      name.includes('.partial') &&
      Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > ABANDONED_MS
    )
      rmSync(path, { recursive: true, force: true });
  }
}

export interface BuiltFacts {
  stamp: string;
  path: string;
  /** Rows copied per table; empty when a copy for the stamp already existed. */
  rows: Record<string, number>;
  ms: number;
}

/**
 * Writes the columnar copy of the report facts for the row store's current data stamp into
 * `dir`: each table of COLUMNAR_TABLES exported from the row store as CSV (page by page, a
 * million rows a file, in bounded memory) and read by DuckDB's CSV reader, then the stamp. The file is written under a
 * temporary name and renamed into place, so a reader sees a whole copy or none; a copy whose
 * stamp moved while it was written is discarded (StampMovedError). Older copies are removed.
 */
export async function buildColumnarFacts(
  source: FactSource,
  dir: string,
  options: DuckdbSettings & { force?: boolean } = {},
): Promise<BuiltFacts> {
  const started = performance.now();
  mkdirSync(dir, { recursive: true });
  const stamp = await source.dataStamp();
  const path = factsPath(dir, stamp);
  if (existsSync(path) && !options.force) return { stamp, path, rows: {}, ms: 0 };
  const partial = join(dir, `${stamp}.${process.pid}.${Date.now().toString(36)}.partial`);
  const csv = `${partial}.csv`;
  const rows: Record<string, number> = {};
  const instance = await DuckDBInstance.create(partial, duckdbConfig(options, false));
  try {
    const connection = await utcConnection(instance);
    for (const { source: from, table } of COLUMNAR_TABLES) {
      await connection.run(createTableSql(duckdbDialect, table));
      const pages = source.csvPages(from, columnNames(table), PAGE)[Symbol.asyncIterator]();
      rows[table.name] = 0;
      for (;;) {
        const written = await exportSome(pages, csv);
        if (written === 0) break;
        await connection.run(readCsvSql(table, csv));
        rows[table.name] += written;
      }
    }
    await connection.run('CREATE TABLE facts_meta (data_stamp VARCHAR NOT NULL)');
    await connection.run('INSERT INTO facts_meta VALUES (?)', [stamp]);
    await connection.run('CHECKPOINT');
    connection.closeSync();
    instance.closeSync();
    if ((await source.dataStamp()) !== stamp) throw new StampMovedError();
    renameSync(partial, path);
    removeOthers(dir, path);
    return { stamp, path, rows, ms: Math.round(performance.now() - started) };
  } catch (error) {
    instance.closeSync();
    rmSync(partial, { force: true });
    rmSync(`${partial}.wal`, { force: true });
    throw error;
  } finally {
    rmSync(csv, { force: true });
  }
}
