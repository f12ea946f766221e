import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ReportTimeoutError } from '../../src/errors.js';
import { assertError } from '../support/assertions.js';
import { DIALECTS, post, startHarness } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

/** Queries that keep each database busy for seconds. */
const RUNAWAY = {
  sqlite:
    'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT COUNT(*) AS n FROM c',
  postgres: 'SELECT pg_sleep(30) AS n',
};

for (const dialect of DIALECTS) {
  describe(`report time limit (${dialect})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await openTestDatabase(dialect, false);
    });
    after(() => db.drop());

    it('answers a runaway query with ReportTimeoutError while the event loop keeps running', async () => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      const started = Date.now();
      await assert.rejects(db.store.runReport(RUNAWAY[dialect], [], 200), ReportTimeoutError);
      clearInterval(timer);
      assert.ok(ticks > 0, 'the event loop ran while the query did');
      // The rejection comes from the time limit, not from the query finishing.
      assert.ok(Date.now() - started < 10_000);
    });

    it('serves the next report after a timeout', async () => {
      const rows = await db.store.runReport('SELECT 41 + 1 AS answer', [], 5_000);
      assert.equal(Number(rows[0].answer), 42);
    });

    it('answers 503 query_timeout over HTTP when a report runs past its limit', async () => {
      const h = await startHarness({ dialect, reportTimeoutMs: 1 });
      try {
        const answer = await post(h.app, '/api/v1/reports/query', h.tokens.staff, {
          query: {
            metrics: ['hours_worked', 'time_entry_count'],
            dimensions: ['work_date', 'supplier', 'pay_code'],
            limit: 1000,
          },
        });
        assertError(answer, 503, 'query_timeout');
        assert.equal(answer.headers['retry-after'], '1');
      } finally {
        await h.close();
      }
    });
  });
}
