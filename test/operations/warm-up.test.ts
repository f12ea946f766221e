import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { warmQueries, warmReports } from '../../src/operations/warm-up.js';
import { VIEWS } from '../../src/semantic/views.js';
import { DIALECTS, startHarness, type Harness } from '../support/harness.js';

/**
 * The start-up warm-up (serve runs it before listening): one report per view of each workspace's
 * catalog, every one a query the service accepts and answers, run with no token and leaving no
 * token behind.
 */
for (const dialect of DIALECTS)
  describe(`warming reports before a server listens (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h?.close());

    it('runs one accepted report per view of every workspace, and makes no token', async () => {
      const tokens = async () =>
        Number((await h.one<{ n: number }>('SELECT COUNT(*) AS n FROM tokens'))?.n);
      const before = await tokens();
      const workspaces = await h.store.listWorkspaces();
      const failures: unknown[] = [];
      const warm = await warmReports(h.executor, workspaces, (_message, failure) =>
        failures.push(failure),
      );
      assert.deepEqual(failures, []);
      assert.equal(warm.failed, 0);
      let views = 0;
      for (const workspace of workspaces) {
        const queries = warmQueries(await h.executor.catalogOf(workspace));
        const metrics = queries.map((q) => (q.query.metrics as string[])[0]);
        const catalog = await h.executor.catalogOf(workspace);
        const viewsOf = new Set(metrics.map((m) => catalog.metrics.get(m)?.view));
        assert.equal(viewsOf.size, queries.length, `${workspace.id}: one query per view`);
        for (const view of viewsOf) assert.ok(VIEWS.has(view as string));
        views += queries.length;
      }
      assert.equal(warm.queries, views);
      assert.ok(views >= 6, `${views} views warmed`);
      assert.equal(await tokens(), before, 'no token was made');
    });
  });
