/**
 * The report layer in the OData feed (DESIGN §4.18): a set per saved query a token may run,
 * typed by its dimensions and metrics, whose rows are run_saved_query's now; the catalog as
 * `Metrics`. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { savedQuerySetName } from '../../src/odata/report-sets.js';
import { DIALECTS, get, post, startHarness, WS, type Harness } from '../support/harness.js';

const FEED = '/odata/v4';

const plain = (value: unknown) =>
  value !== null && typeof value === 'object' ? (value as { value: unknown }).value : value;

for (const dialect of DIALECTS)
  describe(`saved queries and Metrics as OData sets (${dialect})`, () => {
    let h: Harness;
    let saved: { id: string; name: string }[];
    before(async () => {
      h = await startHarness({ dialect });
      saved = await h.all<{ id: string; name: string }>(
        'SELECT id, name FROM saved_queries WHERE workspace_id = ? ORDER BY pinned_at, id',
        WS,
      );
      assert.ok(saved.length > 0);
    });
    after(() => h?.close());

    it('lists a set per saved query and Metrics for staff, none for other roles', async () => {
      const staff = await get(h.app, `${FEED}/`, h.tokens.staff);
      const names = staff.body.value.map((s: { name: string }) => s.name);
      assert.ok(names.includes('Metrics'));
      for (const { id } of saved) assert.ok(names.includes(savedQuerySetName(id)), id);
      const worker = await get(h.app, `${FEED}/`, h.tokens.worker);
      assert.ok(
        !worker.body.value.some((s: { name: string }) => /^(Metrics|SavedQuery_)/.test(s.name)),
      );
      assert.equal((await get(h.app, `${FEED}/Metrics`, h.tokens.worker)).status, 403);
      assert.equal(
        (await get(h.app, `${FEED}/${savedQuerySetName(saved[0].id)}`, h.tokens.programOnly))
          .status,
        403,
      );
    });

    it('types each saved query’s set by its dimensions and metrics, titled by its name', async () => {
      const meta = await get(h.app, `${FEED}/$metadata?$format=json`, h.tokens.staff);
      const name = savedQuerySetName(saved[0].id);
      const container = meta.body.VmsRead.Container;
      assert.equal(container[name]['@Core.Description'], saved[0].name);
      const type = meta.body.VmsRead[name];
      assert.deepEqual(type.$Key, ['row']);
      const answer = await post(h.app, '/api/v1/reports/saved-queries/run', h.tokens.staff, {
        savedQueryId: saved[0].id,
      });
      for (const column of answer.body.data.columns) assert.ok(column in type, column);
    });

    it('serves each saved query’s rows as run_saved_query answers them now', async () => {
      for (const { id } of saved) {
        const rows: Record<string, unknown>[] = [];
        let cursor: string | undefined;
        let refused = false;
        do {
          const answer = await post(
            h.app,
            '/api/v1/reports/saved-queries/run',
            h.tokens.staff,
            cursor ? { savedQueryId: id, cursor } : { savedQueryId: id },
          );
          if (answer.body.data.status === 'refused') {
            refused = true;
            break;
          }
          rows.push(...answer.body.data.rows);
          cursor = answer.body.data.nextCursor ?? undefined;
        } while (cursor);
        const feed = await get(
          h.app,
          `${FEED}/${savedQuerySetName(id)}?$count=true`,
          h.tokens.staff,
        );
        if (refused) {
          assert.notEqual(feed.status, 200);
          continue;
        }
        assert.equal(feed.status, 200, feed.raw);
        assert.equal(feed.body['@odata.count'], rows.length);
        assert.deepEqual(
          feed.body.value,
          rows.map((row, i) => ({
            row: i + 1,
            ...Object.fromEntries(
              Object.entries(row).map(([k, v]) => [
                k,
                typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : plain(v),
              ]),
            ),
          })),
        );
      }
      const top = await get(
        h.app,
        `${FEED}/${savedQuerySetName(saved[0].id)}?$top=1&$select=row`,
        h.tokens.staff,
      );
      assert.deepEqual(top.body.value, [{ row: 1 }]);
      const filtered = await get(
        h.app,
        `${FEED}/${savedQuerySetName(saved[0].id)}?$filter=row%20eq%201`,
        h.tokens.staff,
      );
      assert.equal(filtered.status, 501);
    });

    it('serves the catalog’s metrics as Metrics', async () => {
      const catalog = await get(h.app, '/api/v1/reports/catalog', h.tokens.staff);
      const metrics = await get(h.app, `${FEED}/Metrics`, h.tokens.staff);
      assert.equal(metrics.status, 200);
      assert.deepEqual(metrics.body.value, catalog.body.data.metrics);
    });
  });
