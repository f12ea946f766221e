/**
 * The columnar copy of the report facts (src/store/duckdb/): it holds exactly what the row store
 * holds, table by table and value by value; it is never read once the row store has a newer data
 * stamp; a query past its time limit is interrupted; results are cached by data stamp and SQL.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ReportTimeoutError } from '../../src/errors.js';
import { buildColumnarFacts } from '../../src/store/duckdb/build-facts.js';
import { COLUMNAR_TABLES } from '../../src/store/duckdb/columnar-tables.js';
import { ColumnarReports } from '../../src/store/duckdb/columnar-reports.js';
import { DuckdbFacts } from '../../src/store/duckdb/duckdb-facts.js';
import { stampOf } from '../../src/store/store.js';
import { columnNames } from '../../src/store/table.js';
import { VIEWS } from '../../src/semantic/views.js';
import { DIALECTS, post, startHarness, WS, type Harness } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

/** Text that CSV must carry unchanged: quotes, separators, line breaks, spaces, non-ASCII. */
const AWKWARD = [
  'a "quoted", comma',
  'line\nbreak\r\nand return',
  '  padded  ',
  '""',
  ',',
  'naïve — 東京 😀',
  '\\N',
  'NULL',
];

const sortKey = (row: unknown[]) =>
  JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? Number(v) : v));

async function duckRows(path: string, table: string, columns: string[]): Promise<string[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(`SELECT ${columns.join(', ')} FROM ${table}`);
    const rows = reader.getRows().map((r) => sortKey(r));
    connection.closeSync();
    return rows.sort();
  } finally {
    instance.closeSync();
  }
}

for (const dialect of DIALECTS) {
  describe(`columnar copy of the report facts (${dialect})`, () => {
    let database: TestDatabase;
    let dir: string;
    before(async () => {
      database = await openTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'vms-read-columnar-'));
      // Awkward text and empty strings in columns the copy reads, next to real NULLs.
      const ids = await database.all<{ id: string }>(
        'SELECT id FROM time_entries ORDER BY id LIMIT ?',
        AWKWARD.length + 1,
      );
      for (const [i, value] of [...AWKWARD, ''].entries())
        await database.store.run('UPDATE time_entries SET supplier_ref = ? WHERE id = ?', [
          value,
          ids[i].id,
        ]);
      await database.store.run(
        'UPDATE invoices SET supplier_ref = NULL WHERE id = (SELECT MIN(id) FROM invoices)',
      );
      await database.store.refreshReportFacts();
    });
    after(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('holds every row and value of each table it copies, awkward text, empty strings and NULLs included', async () => {
      const built = await buildColumnarFacts(database.store, dir);
      assert.equal(built.stamp, stampOf(await database.store.dataVersion()));
      for (const { source, table } of COLUMNAR_TABLES) {
        const columns = columnNames(table);
        const expected = (
          await database.all<Record<string, unknown>>(
            `SELECT ${columns.join(', ')} FROM ${source.name}`,
          )
        )
          .map((row) => sortKey(columns.map((c) => row[c])))
          .sort();
        const actual = await duckRows(built.path, table.name, columns);
        assert.equal(actual.length, built.rows[table.name], table.name);
        assert.ok(actual.length > 0, `${table.name} is empty`);
        assert.deepEqual(actual, expected, table.name);
      }
      const suppliers = await duckRows(built.path, 'report_time_entries', ['supplier_ref']);
      for (const value of [...AWKWARD, ''])
        assert.ok(suppliers.includes(sortKey([value])), JSON.stringify(value));
    });

    it('copies only the columns report views read, and every column they read', () => {
      for (const view of VIEWS.values()) {
        const sql = [view.from, ...view.joins.map((j) => j.sql), JSON.stringify(view.columns)];
        const aliases = new Map(
          [view.from, ...view.joins.map((j) => j.sql.replace(/^JOIN /, '').split(' ON ')[0])].map(
            (clause) => {
              const [table, alias] = clause.split(' ');
              return [alias, table] as const;
            },
          ),
        );
        for (const [, alias, column] of sql.join(' ').matchAll(/\b([a-z])\.([a-z_]+)/g)) {
          const table = aliases.get(alias);
          const copy = COLUMNAR_TABLES.find((t) => t.table.name === table);
          assert.ok(copy, `${view.name}: ${table} is not copied`);
          assert.ok(
            Object.hasOwn(copy.table.columns, column),
            `${view.name} reads ${table}.${column}, which is not copied`,
          );
        }
      }
    });

    it('is written under a new name and keeps only the current stamp and copies being written', async () => {
      // A partial copy a dead writer left two hours ago, and one being written now.
      const abandoned = join(dir, 'old.1.x.partial');
      const writing = join(dir, 'new.2.y.partial');
      writeFileSync(abandoned, '');
      writeFileSync(writing, '');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(abandoned, twoHoursAgo, twoHoursAgo);
      await database.store.refreshReportFacts();
      const built = await buildColumnarFacts(database.store, dir);
      assert.deepEqual(readdirSync(dir).sort(), [basename(built.path), 'new.2.y.partial'].sort());
      rmSync(writing);
    });

    it('gives back the blocks its warm-up read at open, and reads them again for a query', async () => {
      const built = await buildColumnarFacts(database.store, dir);
      const facts = await DuckdbFacts.open(built.path, 1);
      try {
        const afterOpen = await facts.bufferedTableBytes();
        // Every column of every table the copy holds, as the warm-up read them.
        for (const { source, table } of COLUMNAR_TABLES) {
          const rows = await facts.run(
            `SELECT COUNT(*) AS n, MIN(COLUMNS(*)) FROM ${table.name}`,
            [],
            30_000,
          );
          const [stored] = await database.all<{ n: number | string }>(
            `SELECT COUNT(*) AS n FROM ${source.name}`,
          );
          assert.equal(Number(rows[0].n), Number(stored.n), table.name);
        }
        // Every column read again: the pool holds them now, as it did after the warm-up.
        assert.ok(
          (await facts.bufferedTableBytes()) > afterOpen,
          `${afterOpen} bytes held after open`,
        );
      } finally {
        await facts.close();
      }
    });

    it('interrupts a query past its time limit, and the next query answers', async () => {
      const built = await buildColumnarFacts(database.store, dir);
      const facts = await DuckdbFacts.open(built.path, 1);
      try {
        // A ReportTimeoutError comes from the interrupt alone: a finished query would resolve.
        await assert.rejects(
          // Ten billion products: minutes of work for two cores if it were not interrupted.
          facts.run(
            'SELECT SUM(a.range * b.range) AS n FROM range(100000) a, range(100000) b',
            [],
            200,
          ),
          ReportTimeoutError,
        );
        // One connection: the next query runs only once the interrupted one has let it go.
        const rows = await facts.run('SELECT 41 + 1 AS answer', [], 30_000);
        assert.equal(Number(rows[0].answer), 42);
      } finally {
        await facts.close();
      }
    });
  });

  describe(`reports never read facts older than the row store (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    const entryCount = async () => {
      const answer = await post(h.app, '/api/v1/reports/query', h.tokens.staff, {
        query: { metrics: ['time_entry_count'], dimensions: [] },
      });
      assert.equal(answer.status, 200, answer.raw);
      return answer.body.data.rows[0].time_entry_count as number;
    };

    it('answers from the row store the moment its stamp moves, and from a new copy once written', async () => {
      const { facts } = h;
      assert.equal((await facts.reportEngine()).name, 'duckdb');
      const before = await entryCount();
      const [{ n }] = await h.all<{ n: number }>(
        'SELECT COUNT(*) AS n FROM time_entries WHERE workspace_id = ?',
        WS,
      );
      assert.equal(before, Number(n));
      // Another process's load: rows removed and a new stamp, behind the service's back.
      await h.store.run(
        'DELETE FROM time_entries WHERE workspace_id = ? AND id IN (SELECT id FROM time_entries WHERE workspace_id = ? ORDER BY id LIMIT 5)',
        [WS, WS],
      );
      await h.store.refreshReportFacts();
      const stamp = stampOf(await h.store.dataVersion());
      const engine = await facts.reportEngine();
      assert.notEqual(engine.name, 'duckdb', 'the old copy is not read');
      assert.equal(engine.dataStamp, stamp);
      assert.equal(await entryCount(), before - 5);
      await waitFor(async () => (await facts.reportEngine()).name === 'duckdb');
      assert.equal((await facts.reportEngine()).dataStamp, stamp);
      assert.equal(await entryCount(), before - 5);
    });

    it('caches results by data stamp and SQL: a repeat is a lookup, a new stamp a miss', async () => {
      const cache = h.executor.deps.reportResults;
      const query = { query: { metrics: ['spend'], dimensions: ['currency'] } };
      const first = await post(h.app, '/api/v1/reports/query', h.tokens.staff, query);
      const hits = cache.hits;
      const again = await post(h.app, '/api/v1/reports/query', h.tokens.staff, query);
      assert.equal(cache.hits, hits + 1);
      assert.deepEqual(again.body.data, first.body.data);
      await h.store.refreshReportFacts();
      await post(h.app, '/api/v1/reports/query', h.tokens.staff, query);
      assert.equal(cache.hits, hits + 1, 'a new data stamp misses');
    });
  });
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail('condition not met in 30 s');
}

describe('ColumnarReports without a copy', () => {
  it('answers from the row store and writes no copy when building is off', async () => {
    const database = await openTestDatabase('sqlite');
    const dir = mkdtempSync(join(tmpdir(), 'vms-read-columnar-'));
    const facts = new ColumnarReports(database.store, { dir, build: false });
    try {
      assert.equal((await facts.reportEngine()).name, 'sqlite');
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      await facts.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
