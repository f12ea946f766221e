/**
 * A columnar base's report facts lie in key order (issue 59): read from the row store's fact views
 * in the key's order, each row group covers a narrow range of dates (what lets a report skip the
 * rest). Read back by DuckDB's `rowid`, the stored order; both stores. (Reading the views in the
 * join's own order and letting DuckDB sort them was tried and measured no faster: performance.md.)
 */
import { DuckDBInstance } from '@duckdb/node-api';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { COLUMNAR_TABLES } from '../../src/store/duckdb/columnar-tables.js';
import { REPORT_FACT_TABLES } from '../../src/store/sql/report-facts.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

for (const dialect of DIALECTS)
  describe(`a columnar base's report facts, in key order (${dialect})`, () => {
    let database: TestDatabase;
    let dir: string;
    before(async () => {
      database = await openTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'vms-read-base-order-'));
    });
    after(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('stores each view copy sorted by its key, every row once, and leaves no scratch behind', async () => {
      const built = await buildColumnarFacts(database.store, dir);
      assert.deepEqual(readdirSync(dir), [built.path.split('/').pop()], 'the base alone');
      assert.equal(existsSync(`${built.path}.tmp`), false);
      const views = COLUMNAR_TABLES.filter((copy) => REPORT_FACT_TABLES.includes(copy.source));
      assert.deepEqual(
        views.map((copy) => copy.table.name),
        ['report_time_entries', 'report_invoice_lines'],
      );
      const instance = await DuckDBInstance.create(built.path, { access_mode: 'READ_ONLY' });
      try {
        const connection = await instance.connect();
        for (const copy of views) {
          const key = copy.source.primaryKey;
          const stored = (
            await connection.runAndReadAll(
              `SELECT ${key.join(', ')} FROM ${copy.table.name} ORDER BY rowid`,
            )
          ).getRows() as string[][];
          const [{ n }] = await database.all<{ n: number }>(
            `SELECT COUNT(*) AS n FROM ${copy.source.name}`,
          );
          assert.equal(stored.length, Number(n), `${copy.table.name}: every row`);
          assert.ok(stored.length > 1000, `${copy.table.name}: enough rows to be out of order`);
          const outOfOrder = stored.findIndex(
            (row, i) => i > 0 && row.join('\t') < stored[i - 1].join('\t'),
          );
          assert.equal(outOfOrder, -1, `${copy.table.name}: in key order`);
          assert.equal(
            new Set(stored.map((row) => row.join('\t'))).size,
            stored.length,
            `${copy.table.name}: each key once`,
          );
        }
        connection.closeSync();
      } finally {
        instance.closeSync();
      }
    });
  });
