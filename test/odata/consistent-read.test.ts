/**
 * Reading a set to its end through nextLinks yields every record once at one consistent data
 * version (DESIGN §4.18): a read whose set changed since its first page is refused (410
 * `cursor_expired`, read it again), never answered as a mix of versions; a change to another set,
 * or one this token cannot read, does not stop it. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Row } from '../../src/store/store.js';
import { billingToken, loadChanges } from '../support/feed.js';
import { DIALECTS, get, startHarness, WS, type Harness } from '../support/harness.js';
import { later } from '../support/random-loads.js';

const PAGES = { prefer: 'odata.maxpagesize=5' };
const local = (url: string) => url.replace('http://localhost', '');

for (const dialect of DIALECTS)
  describe(`OData reads at one data version (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h?.close());

    /** The first page's nextLink of a set. */
    async function firstPage(set: string, token = h.tokens.staff): Promise<string> {
      const page = await get(h.app, `/odata/v4/${set}`, token, PAGES);
      assert.equal(page.status, 200, page.raw);
      assert.ok(page.body['@odata.nextLink'], 'more than a page');
      return local(page.body['@odata.nextLink']);
    }
    /** Follows nextLinks to the end; the ids read. */
    async function readOn(url: string, token = h.tokens.staff): Promise<string[]> {
      const ids: string[] = [];
      for (let next: string | undefined = url; next;) {
        const page = await get(h.app, next, token, PAGES);
        assert.equal(page.status, 200, page.raw);
        ids.push(...page.body.value.map((v: { id: string }) => v.id));
        next = page.body['@odata.nextLink'] && local(page.body['@odata.nextLink']);
      }
      return ids;
    }
    const one = async (table: string) =>
      (
        await h.all<Row>(
          `SELECT * FROM ${table} WHERE workspace_id = ? ORDER BY created_at DESC, id LIMIT 1`,
          WS,
        )
      )[0];

    it('refuses the rest of a read whose set changed since its first page', async () => {
      const next = await firstPage('Workers');
      const worker = await one('workers');
      await loadChanges(
        h,
        [['workers', [{ ...worker, status: 'inactive', updated_at: later() }]]],
        [],
      );
      const refused = await get(h.app, next, h.tokens.staff, PAGES);
      assert.equal(refused.status, 410, refused.raw);
      assert.equal(refused.body.error.code, 'cursor_expired');
      assert.equal(refused.body.error.target, '$skiptoken');
      assert.match(refused.body.error.message, /read it again from its first page/);
      assert.match(refused.body.request_id, /^[0-9a-f-]{36}$/);
      // Read again from the start, it goes to its end.
      const ids = await readOn(await firstPage('Workers'));
      assert.ok(ids.length > 0);
    });

    it('refuses the rest of a read of parts whose record changed (a timesheet’s entries)', async () => {
      const next = await firstPage('TimeEntries');
      const timesheet = await one('timesheets');
      await loadChanges(
        h,
        [['timesheets', [{ ...timesheet, status: 'rejected', updated_at: later() }]]],
        [],
      );
      assert.equal((await get(h.app, next, h.tokens.staff, PAGES)).status, 410);
    });

    it('reads on when another set changed, or what this token cannot read', async () => {
      const next = await firstPage('Suppliers');
      const expense = await one('expenses');
      await loadChanges(h, [['expenses', [{ ...expense, updated_at: later() }]]], []);
      assert.ok((await readOn(next)).length > 0, 'suppliers read to their end');

      // A billing entity reads its own supplier's invoices; another supplier's change is invisible.
      const { code } = await h.one<{ code: string }>(
        `SELECT supplier_ref AS code FROM invoices WHERE workspace_id = ? AND supplier_ref IS NOT NULL
           GROUP BY supplier_ref ORDER BY COUNT(*) DESC LIMIT 1`,
        WS,
      );
      const billing = await billingToken(h, code);
      const own = await firstPage('Invoices', billing);
      const [foreign] = await h.all<Row>(
        `SELECT * FROM invoices WHERE workspace_id = ? AND supplier_ref <> ? AND supplier_ref IS NOT NULL
           AND id NOT IN (SELECT invoice_id FROM invoice_lines WHERE supplier_ref = ?) LIMIT 1`,
        WS,
        code,
        code,
      );
      await loadChanges(h, [['invoices', [{ ...foreign, updated_at: later() }]]], []);
      assert.ok((await readOn(own, billing)).length > 0, 'its invoices read to their end');
    });
  });
