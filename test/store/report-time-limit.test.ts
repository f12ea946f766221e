import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ReportTimeoutError } from '../../src/errors.js';
import { assertError } from '../support/assertions.js';
import { DIALECTS, post, startHarness, type Answer, type Harness } from '../support/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
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
      // A rejection comes from the time limit: a query that finished would resolve.
      await assert.rejects(db.store.runReport(RUNAWAY[dialect], [], 200), ReportTimeoutError);
      clearInterval(timer);
      assert.ok(ticks > 0, 'the event loop ran while the query did');
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

/**
 * Holds every report query on the real engine until the test opens the gate, and counts the runs
 * that started: what reports do while the engine is busy is then decided by the test, not by how
 * fast this machine is (no duration is asserted: a busy two-core machine must not fail a test).
 */
function gateReports(h: Harness) {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  let started = 0;
  const engineOf = h.facts.reportEngine.bind(h.facts);
  h.facts.reportEngine = async () => {
    const engine = await engineOf();
    return {
      ...engine,
      run: async (sql, params, timeoutMs) => {
        started++;
        await opened;
        return engine.run(sql, params, timeoutMs);
      },
    };
  };
  return { open, started: () => started };
}

/** The i-th of many distinct report queries (identical ones would share one run and its result). */
const distinct = (i: number) => ({
  query: {
    ...REPORT.query,
    timeRange: { from: '2000-01-01', to: `2040-01-${String(i + 1).padStart(2, '0')}` },
  },
});

for (const dialect of DIALECTS) {
  describe(`report admission under load (${dialect})`, () => {
    it('answers every report by its time limit, waiting for a turn included, while the engine is still busy', async () => {
      // A limit long enough that the reports given a turn reach the engine before it, on a
      // loaded machine too (400 ms was not, once, on PostgreSQL beside the rest of the suite).
      const h = await startHarness({ dialect, reportTimeoutMs: 2000, reportQueue: 100 });
      try {
        // Warm up (report workers, connections) before the engine is held.
        assert.equal(
          (await post(h.app, '/api/v1/reports/query', h.tokens.staff, REPORT)).status,
          200,
        );
        const gate = gateReports(h);
        const count = 4 * h.facts.reportConcurrency;
        // The engine answers nothing until the gate opens, after every answer has come back:
        // each was answered by its own time limit, not by the engine.
        const answers = await Promise.all(
          Array.from({ length: count }, (_, i) =>
            post(h.app, '/api/v1/reports/query', h.tokens.staff, distinct(i)),
          ),
        );
        for (const answer of answers) {
          assertError(answer, 503, 'query_timeout');
          assert.equal(answer.headers['retry-after'], '1');
        }
        // Only a turn's worth of reports ever reached the engine; the others timed out waiting.
        assert.equal(gate.started(), h.facts.reportConcurrency);
        gate.open();
        const after = await post(h.app, '/api/v1/reports/query', h.tokens.staff, distinct(count));
        assert.equal(after.status, 200, after.raw);
      } finally {
        await h.close();
      }
    });

    it('answers 503 unavailable with Retry-After at once past capacity, and serves the rest', async () => {
      const queue = 3;
      const h = await startHarness({ dialect, reportTimeoutMs: 120_000, reportQueue: queue });
      try {
        const gate = gateReports(h);
        const capacity = h.facts.reportConcurrency + queue;
        const arrived: Answer[] = [];
        const all = Array.from({ length: capacity + 5 }, (_, i) =>
          post(h.app, '/api/v1/reports/query', h.tokens.staff, distinct(i)).then((answer) => {
            arrived.push(answer);
            return answer;
          }),
        );
        // Five answers come back while the engine holds every query: the refusals, at once.
        while (arrived.length < 5) await sleep(20);
        assert.equal(arrived.length, 5);
        for (const answer of arrived) {
          assertError(answer, 503, 'unavailable');
          assert.equal(answer.headers['retry-after'], '1');
        }
        gate.open();
        const answers = await Promise.all(all);
        assert.equal(answers.filter((a) => a.status === 200).length, capacity);
      } finally {
        await h.close();
      }
    });
  });
}
