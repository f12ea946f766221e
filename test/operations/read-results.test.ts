import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeToken } from '../../src/admin/tokens.js';
import { DIALECTS, get, post, startHarness, type Harness } from '../support/harness.js';

/** The answer without what differs per request (its request id). */
const dataOf = (body: { data: unknown }) => JSON.stringify(body.data);

for (const dialect of DIALECTS) {
  describe(`repeated resource reads (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    const hits = () => h.executor.deps.readResults.hits;
    const workerPath = () => `/api/v1/workers/item?id=${encodeURIComponent(h.workerId)}`;

    if (dialect === 'postgres') {
      it('are not cached: another writer can change PostgreSQL without a cheap sign', async () => {
        const before = hits();
        for (let i = 0; i < 3; i++) await get(h.app, workerPath(), h.tokens.staff);
        assert.equal(hits(), before);
      });
      return;
    }

    it('answer a repeat from the cache (kept from the second request on), the same data under a new request id', async () => {
      const first = await get(h.app, '/api/v1/workers?limit=5', h.tokens.staff);
      const second = await get(h.app, '/api/v1/workers?limit=5', h.tokens.staff);
      assert.equal(h.executor.deps.readResults.size, 1, 'kept on its second request');
      assert.deepEqual(second.body.data.items, first.body.data.items);
      const before = hits();
      const again = await get(h.app, '/api/v1/workers?limit=5', h.tokens.staff);
      assert.equal(hits(), before + 1);
      assert.equal(again.status, 200);
      assert.equal(dataOf(again.body), dataOf(second.body));
      assert.notEqual(again.body.request_id, first.body.request_id);
      // The cached cursor is the token's own: it pages on.
      const next = await get(
        h.app,
        `/api/v1/workers?limit=5&cursor=${encodeURIComponent(again.body.data.nextCursor)}`,
        h.tokens.staff,
      );
      assert.equal(next.status, 200);
      assert.notEqual(next.body.data.items[0].id, first.body.data.items[0].id);
    });

    it('never share an answer between tokens, even of the same role', async () => {
      await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff);
      await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff);
      const before = hits();
      const other = await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff2);
      assert.equal(hits(), before, 'another token misses');
      // A cursor from one token's (cached) page is refused to the other, as always.
      const mine = await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff);
      const crossed = await get(
        h.app,
        `/api/v1/workers?limit=3&cursor=${encodeURIComponent(mine.body.data.nextCursor)}`,
        h.tokens.staff2,
      );
      assert.equal(crossed.body.data.code, 'invalid_cursor');
      assert.equal(other.status, 200);
    });

    it('see a change written by another connection on the next request', async () => {
      const before = await get(h.app, workerPath(), h.tokens.staff);
      await get(h.app, workerPath(), h.tokens.staff);
      const hitsBefore = hits();
      assert.equal(
        dataOf((await get(h.app, workerPath(), h.tokens.staff)).body),
        dataOf(before.body),
      );
      assert.equal(hits(), hitsBefore + 1, 'answered from the cache before the change');
      const writer = new Database(h.db);
      try {
        writer
          .prepare('UPDATE workers SET display_name = ? WHERE id = ?')
          .run('Renamed Elsewhere', h.workerId);
      } finally {
        writer.close();
      }
      // A request over a connection arrives in a later turn of the event loop than a commit its
      // client saw; an injected one may not, so the test lets a turn pass (the stamp is read once
      // a turn: sqlite-store.ts).
      await new Promise((resolve) => setImmediate(resolve));
      const after = await get(h.app, workerPath(), h.tokens.staff);
      assert.equal(hits(), hitsBefore + 1, 'the change misses');
      assert.notEqual(dataOf(after.body), dataOf(before.body));
      assert.equal(after.body.data.item.displayName.value, 'Renamed Elsewhere');
    });

    it('stop at once for a token revoked while its answers are cached', async () => {
      const token = h.tokens.programOnly;
      const path = '/api/v1/suppliers?limit=2';
      for (let i = 0; i < 3; i++) assert.equal((await get(h.app, path, token)).status, 200);
      await revokeToken(h.store, token, new Date());
      assert.equal((await get(h.app, path, token)).status, 401);
    });

    it('keep refusals of bad input out of the way: a strictness error is never cached', async () => {
      const bad = await get(h.app, '/api/v1/workers?limit=0', h.tokens.staff);
      assert.equal(bad.status, 404);
      const before = h.executor.deps.readResults.size;
      assert.equal((await get(h.app, '/api/v1/workers?limit=0', h.tokens.staff)).status, 404);
      assert.equal(h.executor.deps.readResults.size, before);
    });
  });
}

describe('repeated report requests (sqlite)', () => {
  let h: Harness;
  let clock = new Date('2026-06-30T23:59:00Z');
  before(async () => {
    h = await startHarness({ now: () => clock });
  });
  after(() => h.close());

  it('are answered from the cache within a day, and computed afresh the next day', async () => {
    const query = {
      query: { metrics: ['hours_worked'] },
      period: { kind: 'relative', unit: 'month', offset: 0 },
    };
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await post(h.app, '/api/v1/reports/query', h.tokens.staff, query));
    const hits = h.executor.deps.readResults.hits;
    assert.ok(hits >= 1, 'the third request is a lookup');
    assert.equal(dataOf(answers[2].body), dataOf(answers[1].body));
    clock = new Date('2026-07-01T00:01:00Z');
    const nextDay = await post(h.app, '/api/v1/reports/query', h.tokens.staff, query);
    assert.equal(h.executor.deps.readResults.hits, hits, 'a new day misses');
    assert.notDeepEqual(
      nextDay.body.data.semanticQuery.timeRange,
      answers[2].body.data.semanticQuery.timeRange,
      'the relative period resolves to the new month',
    );
  });
});
