import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RECYCLE_AFTER_PREPARED } from '../../src/store/sqlite/report-pool.js';
import { STATEMENT_CACHE_SIZE } from '../../src/store/sqlite/sqlite-store.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';

/**
 * More distinct SQL texts than any cache holds, and than a report worker prepares before it is
 * replaced: memory must not grow with the number of shapes.
 */
const SHAPES = RECYCLE_AFTER_PREPARED + 300;

for (const dialect of DIALECTS) {
  describe(`per-shape caches stay bounded however many distinct queries arrive (${dialect})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await openTestDatabase(dialect, false);
    });
    after(() => database.drop());

    it('keeps a bounded number of statements for distinct point queries', async () => {
      for (let i = 0; i < SHAPES; i++) await database.store.all(`SELECT ${i} AS n`);
      const sizes = database.store.cacheSizes();
      const held = dialect === 'sqlite' ? sizes.statements : sizes.sqlTexts;
      assert.ok(held > 0, JSON.stringify(sizes));
      assert.ok(held <= STATEMENT_CACHE_SIZE * 2, JSON.stringify(sizes));
    });

    it('keeps a bounded number of statements for distinct report queries', async () => {
      for (let i = 0; i < SHAPES; i++)
        assert.deepEqual(
          (await database.store.runReport(`SELECT ${i} AS n`, [], 5000)).map((r) => Number(r.n)),
          [i],
        );
      const { reportWorkersReplaced, ...sizes } = database.store.cacheSizes();
      for (const [cache, held] of Object.entries(sizes))
        assert.ok(held <= STATEMENT_CACHE_SIZE * 2, `${cache} holds ${held}`);
      if (dialect === 'sqlite') {
        assert.ok(sizes.reportStatements > 100, JSON.stringify(sizes));
        // A worker that prepared RECYCLE_AFTER_PREPARED statements was replaced by a fresh one.
        assert.ok(reportWorkersReplaced >= 1, JSON.stringify({ reportWorkersReplaced }));
      }
    });
  });
}
