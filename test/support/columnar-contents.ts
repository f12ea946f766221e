/**
 * What a columnar copy holds, for comparing two copies: every row of every columnar table and
 * rollup, sorted, as text; and that of a copy written whole, now, from the row store.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { FACT_COUNT, ROLLUPS } from '../../src/semantic/rollups.js';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { COLUMNAR_TABLES } from '../../src/store/duckdb/columnar-tables.js';
import { valuesOf } from '../../src/store/duckdb/rollup-tables.js';
import { columnNames } from '../../src/store/table.js';
import type { TestDatabase } from './test-databases.js';

const text = (value: unknown) =>
  value === null ? null : typeof value === 'bigint' ? String(value) : String(value);

type Read = (sql: string) => Promise<Record<string, unknown>[]>;

/** Every columnar table and rollup, with the columns a copy is compared on. */
const TABLES = [
  ...COLUMNAR_TABLES.map(({ table }) => ({ name: table.name, columns: columnNames(table) })),
  ...ROLLUPS.map((r) => ({
    name: r.name,
    columns: [
      'workspace_id',
      r.time,
      ...r.keys,
      ...r.sums.flatMap((sum) => [sum, valuesOf(sum)]),
      FACT_COUNT,
    ],
  })),
];

/**
 * Every row of every columnar table and rollup, sorted, as text: what two copies are compared
 * by. So a patched copy's rollups are checked against rollups summed whole.
 */
async function contents(run: Read): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const { name, columns } of TABLES) {
    const rows = await run(`SELECT ${columns.join(', ')} FROM ${name}`);
    tables[name] = rows.map((row) => JSON.stringify(columns.map((c) => text(row[c])))).sort();
  }
  return tables;
}

/**
 * Each table's row count and the MD5 of its rows as text, sorted, worked out by DuckDB: two
 * copies with the same digests hold the same rows. Reading the rows themselves into JavaScript
 * took a second a copy of the tiny seed, twice in each of the patch tests' runs.
 */
async function digests(run: Read): Promise<Record<string, string>> {
  const tables: Record<string, string> = {};
  for (const { name, columns } of TABLES) {
    const row = columns.map((c) => `CAST(${c} AS VARCHAR)`).join(', ');
    const [{ n, digest }] = await run(
      `SELECT COUNT(*) AS n, md5(COALESCE(string_agg(r, chr(10) ORDER BY r), '')) AS digest
         FROM (SELECT CAST(to_json([${row}]) AS VARCHAR) AS r FROM ${name})`,
    );
    tables[name] = `${String(n)} ${String(digest)}`;
  }
  return tables;
}

/**
 * Holds that the copy `run` reads has exactly what a copy written whole, now, from the row store
 * has. The digests are compared first; where they differ the rows are, so a failure names the
 * rows that differ, and the verdict is always the rows' (values that DuckDB casts to text
 * differently but JavaScript shows alike are alike, as they were when only rows were compared).
 */
export async function assertAsWrittenWhole(
  run: Read,
  db: TestDatabase,
  message?: string,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-whole-'));
  try {
    const built = await buildColumnarFacts(db.store, dir);
    const instance = await DuckDBInstance.create(built.path, { access_mode: 'READ_ONLY' });
    try {
      const connection = await instance.connect();
      const whole: Read = async (sql) => (await connection.runAndReadAll(sql)).getRowObjects();
      if (!isDeepStrictEqual(await digests(run), await digests(whole)))
        assert.deepEqual(await contents(run), await contents(whole), message);
      connection.closeSync();
    } finally {
      instance.closeSync();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
