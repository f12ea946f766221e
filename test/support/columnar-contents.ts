/**
 * What a columnar copy holds, for comparing two copies: every row of every columnar table and
 * rollup, sorted, as text; and that of a copy written whole, now, from the row store.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FACT_COUNT, ROLLUPS } from '../../src/semantic/rollups.js';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { COLUMNAR_TABLES } from '../../src/store/duckdb/columnar-tables.js';
import { valuesOf } from '../../src/store/duckdb/rollup-tables.js';
import { columnNames } from '../../src/store/table.js';
import type { TestDatabase } from './test-databases.js';

const text = (value: unknown) =>
  value === null ? null : typeof value === 'bigint' ? String(value) : String(value);

/**
 * Every row of every columnar table and rollup, sorted, as text: what two copies are compared
 * by. So a patched copy's rollups are checked against rollups summed whole.
 */
export async function contents(
  run: (sql: string) => Promise<Record<string, unknown>[]>,
): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  const all = [
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
  for (const { name, columns } of all) {
    const rows = await run(`SELECT ${columns.join(', ')} FROM ${name}`);
    tables[name] = rows.map((row) => JSON.stringify(columns.map((c) => text(row[c])))).sort();
  }
  return tables;
}

/** The contents of a copy written whole, now, from the row store. */
export async function wholeCopy(db: TestDatabase): Promise<Record<string, string[]>> {
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-whole-'));
  try {
    const built = await buildColumnarFacts(db.store, dir);
    const instance = await DuckDBInstance.create(built.path, { access_mode: 'READ_ONLY' });
    try {
      const connection = await instance.connect();
      const read = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjects();
      const result = await contents(read);
      connection.closeSync();
      return result;
    } finally {
      instance.closeSync();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
