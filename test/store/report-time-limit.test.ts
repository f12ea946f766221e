import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ReportTimeoutError } from '../../src/errors.js';
import { assertError } from '../support/assertions.js';
import { DIALECTS, post, startHarness, type Answer, type Harness } from '../support/harness.js';
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

const REPORT = { query: { metrics: ['invoice_count'], dimensions: ['currency'] } };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes every report query take at least `ms` on the real engine, so that reports queue up. */
function slowReports(h: Harness, ms: number): void {
  const engineOf = h.facts.reportEngine.bind(h.facts);
  h.facts.reportEngine = async () => {
    const engine = await engineOf();
    return {
      ...engine,
      run: async (sql, params, timeoutMs) => {
        await sleep(ms);
        return engine.run(sql, params, timeoutMs);
      },
    };
  };
}

/** The i-th of many distinct report queries (identical ones would share one run and its result). */
const distinct = (i: number) => ({
  query: {
    ...REPORT.query,
    timeRange: { from: '2000-01-01', to: `2040-01-${String(i + 1).padStart(2, '0')}` },
  },
});

async function timed(request: () => Promise<Answer>): Promise<Answer & { ms: number }> {
  const started = performance.now();
  const answer = await request();
  return { ...answer, ms: performance.now() - started };
}

for (const dialect of DIALECTS) {
  describe(`report admission under load (${dialect})`, () => {
    it('bounds the time from receipt to answer, waiting for a turn included', async () => {
      const limit = 400;
      const h = await startHarness({ dialect, reportTimeoutMs: limit, reportQueue: 100 });
      try {
        // Warm up (report workers, connections), then make each report take over half the
        // limit: only the first turn of reports can answer in time.
        assert.equal(
          (await post(h.app, '/api/v1/reports/query', h.tokens.staff, REPORT)).status,
          200,
        );
        slowReports(h, 250);
        const answers = await Promise.all(
          Array.from({ length: 4 * h.facts.reportConcurrency }, (_, i) =>
            timed(() => post(h.app, '/api/v1/reports/query', h.tokens.staff, distinct(i))),
          ),
        );
        for (const answer of answers) {
          if (answer.status !== 200) assertError(answer, 503, 'query_timeout');
          // The margin covers this process's own scheduling on a loaded machine, not the server.
          assert.ok(answer.ms < limit + 300, `answered after ${Math.round(answer.ms)} ms`);
        }
        const ok = answers.filter((a) => a.status === 200).length;
        assert.ok(ok >= 1 && ok <= h.facts.reportConcurrency, `${ok} answered in time`);
      } finally {
        await h.close();
      }
    });

    it('answers 503 unavailable with Retry-After at once past capacity, and serves the rest', async () => {
      const queue = 3;
      const h = await startHarness({ dialect, reportTimeoutMs: 10_000, reportQueue: queue });
      try {
        slowReports(h, 600);
        const capacity = h.facts.reportConcurrency + queue;
        const answers = await Promise.all(
          Array.from({ length: capacity + 5 }, (_, i) =>
            timed(() => post(h.app, '/api/v1/reports/query', h.tokens.staff, distinct(i))),
          ),
        );
        const refused = answers.filter((a) => a.status === 503);
        assert.equal(refused.length, 5);
        for (const answer of refused) {
          assertError(answer, 503, 'unavailable');
          assert.equal(answer.headers['retry-after'], '1');
          assert.ok(answer.ms < 450, `refused after ${Math.round(answer.ms)} ms, not at once`);
        }
        assert.equal(answers.filter((a) => a.status === 200).length, capacity);
      } finally {
        await h.close();
      }
    });
  });
}
