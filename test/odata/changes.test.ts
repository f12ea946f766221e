/**
 * Change tracking in the OData feed (DESIGN §4.18): `Prefer: odata.track-changes` gives a set's
 * last page a deltaLink; GET on it answers what changed since, at its latest version, and
 * tombstones as deleted entities in the form of the version answered (4.0's `$deletedEntity`,
 * 4.01's `@removed`), then a new deltaLink; it follows list_changes: nothing skipped, no trace of
 * invisible changes. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Row } from '../../src/store/store.js';
import { billingToken, loadChanges } from '../support/feed.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';
import { later } from '../support/random-loads.js';

const TRACK = { prefer: 'odata.track-changes, odata.maxpagesize=40' };
const local = (url: string) => url.replace('http://localhost', '');

for (const dialect of DIALECTS)
  describe(`OData change tracking (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h?.close());

    /** A tracked read of a set to its end: its entities and its deltaLink. */
    async function trackedRead(set: string, token: string, headers: Record<string, string> = {}) {
      let url = `/odata/v4/${set}`;
      const ids: string[] = [];
      for (;;) {
        const page = await get(h.app, url, token, { ...TRACK, ...headers });
        assert.equal(page.status, 200, page.raw);
        assert.match(String(page.headers['preference-applied']), /odata\.track-changes/);
        ids.push(...page.body.value.map((v: { id: string }) => v.id));
        if (page.body['@odata.nextLink']) {
          assert.equal(
            page.body['@odata.deltaLink'],
            undefined,
            'a deltaLink only on the last page',
          );
          url = local(page.body['@odata.nextLink']);
          continue;
        }
        assert.ok(page.body['@odata.deltaLink'], page.raw);
        return { ids, delta: local(page.body['@odata.deltaLink']) as string };
      }
    }

    it('answers the changes since a full read: updates at their latest version, deletions as deleted entities (4.0 and 4.01)', async () => {
      const staff = await trackedRead(
        'Expenses?$select=id,amountCents,amount,currency',
        h.tokens.staff,
      );
      const staff401 = await trackedRead('Expenses', h.tokens.staff, {
        'odata-maxversion': '4.01',
      });
      const [changed, removed] = await h.all<Row>(
        'SELECT * FROM expenses WHERE workspace_id = ? AND id NOT IN (SELECT source_ref FROM invoice_lines) ORDER BY created_at, id LIMIT 2',
        WS,
      );
      await loadChanges(
        h,
        [['expenses', [{ ...changed, amount_cents: 4242, updated_at: later() }]]],
        [{ type: 'expense', id: String(removed.id), deleted_at: later() }],
      );
      const delta = await get(h.app, staff.delta, h.tokens.staff);
      assert.equal(delta.status, 200, delta.raw);
      assert.equal(
        delta.body['@odata.context'],
        'http://localhost/odata/v4/$metadata#Expenses/$delta',
      );
      const byId = new Map(delta.body.value.map((v: Record<string, unknown>) => [String(v.id), v]));
      assert.deepEqual(byId.get(String(changed.id)), {
        id: changed.id,
        amountCents: 4242,
        amount: changed.currency === 'JPY' ? 4242 : changed.currency === 'KWD' ? 4.242 : 42.42,
        currency: changed.currency,
      });
      assert.deepEqual(byId.get(`http://localhost/odata/v4/Expenses('${removed.id}')`), {
        '@odata.context': 'http://localhost/odata/v4/$metadata#Expenses/$deletedEntity',
        id: `http://localhost/odata/v4/Expenses('${removed.id}')`,
        reason: 'deleted',
      });
      assert.equal(delta.body.value.length, 2);
      // Then nothing more, and a deltaLink again.
      const again = await get(h.app, local(delta.body['@odata.deltaLink']), h.tokens.staff);
      assert.deepEqual(again.body.value, []);
      assert.ok(again.body['@odata.deltaLink']);
      const v401 = await get(h.app, staff401.delta, h.tokens.staff, { 'odata-maxversion': '4.01' });
      assert.deepEqual(
        v401.body.value.find((v: Record<string, unknown>) => '@removed' in v),
        {
          '@removed': { reason: 'deleted' },
          '@id': `http://localhost/odata/v4/Expenses('${removed.id}')`,
        },
      );
      // Bound to its token.
      const other = await get(h.app, staff.delta, h.tokens.staff2);
      assert.equal(other.status, 400);
      assert.equal(other.body.error.code, 'invalid_cursor');
    });

    it('shows no trace of changes a billing entity cannot read, and what it can', async () => {
      const billing = await billingToken(h, h.supplierCode);
      const read = await trackedRead('Expenses?$select=id', billing);
      const [foreign] = await h.all<Row>(
        'SELECT * FROM expenses WHERE workspace_id = ? AND supplier_ref <> ? ORDER BY created_at, id LIMIT 1',
        WS,
        h.supplierCode,
      );
      const [own] = await h.all<Row>(
        'SELECT * FROM expenses WHERE workspace_id = ? AND supplier_ref = ? ORDER BY created_at, id LIMIT 1',
        WS,
        h.supplierCode,
      );
      assert.ok(read.ids.includes(String(own.id)));
      await loadChanges(h, [
        [
          'expenses',
          [
            { ...foreign, status: 'rejected', updated_at: later() },
            { ...own, status: 'rejected', updated_at: later() },
          ],
        ],
      ]);
      const delta = await get(h.app, read.delta, billing);
      assert.deepEqual(delta.body.value, [{ id: own.id }]);
    });

    it('does not apply to a filtered read nor to a set the feed does not follow', async () => {
      const filtered = await get(
        h.app,
        "/odata/v4/Expenses?$filter=status%20eq%20'draft'",
        h.tokens.staff,
        TRACK,
      );
      assert.equal(filtered.status, 200);
      assert.doesNotMatch(String(filtered.headers['preference-applied'] ?? ''), /track-changes/);
      const entries = await get(h.app, '/odata/v4/TimeEntries?$top=1', h.tokens.staff, TRACK);
      assert.equal(entries.body['@odata.deltaLink'], undefined);
      const meta = await get(h.app, '/odata/v4/$metadata?$format=json', h.tokens.staff);
      const container = meta.body.VmsRead.Container;
      assert.equal(container.Expenses['@Capabilities.ChangeTracking'].Supported, true);
      assert.equal(container.TimeEntries['@Capabilities.ChangeTracking'].Supported, false);
    });
  });
