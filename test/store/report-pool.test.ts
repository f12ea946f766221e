import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ReportTimeoutError } from '../../src/errors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { assertError } from '../support/assertions.js';
import { post, startHarness } from '../support/harness.js';

/** A query that keeps SQLite busy for seconds: a long recursive count. */
const RUNAWAY =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000) SELECT COUNT(*) AS n FROM c';

describe('report time limit', () => {
  let dir: string;
  let store: SqliteStore;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-pool-'));
    store = new SqliteStore(join(dir, 'pool.db'));
    await store.migrate();
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a runaway query with ReportTimeoutError while the event loop keeps running', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = Date.now();
    await assert.rejects(store.runReport(RUNAWAY, [], 200), ReportTimeoutError);
    clearInterval(timer);
    assert.ok(ticks > 0, 'the event loop ran while the query did');
    // The rejection comes from the time limit, not from the query finishing.
    assert.ok(Date.now() - started < 5_000);
  });

  it('serves the next report after a timeout', async () => {
    const rows = await store.runReport('SELECT 41 + 1 AS answer', [], 5_000);
    assert.deepEqual(rows, [{ answer: 42n }]);
  });

  it('answers 503 query_timeout over HTTP when a report runs past its limit', async () => {
    const h = await startHarness({ reportTimeoutMs: 1 });
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
