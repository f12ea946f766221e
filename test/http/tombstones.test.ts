/**
 * The change feed's tombstones (DESIGN §4.13), through the HTTP app: a deleted record comes once
 * as `{type, id, version, record: null, removed: {reason: 'deleted'}}` to staff and to the
 * readers that could read it, never to one that could not; a record moved out of a reader's view
 * is a `not_visible` tombstone for it (and the record for the reader it moved to), moved back it
 * is the record again; a worker reaches a supplier through a new assignment of its own, and
 * learns nothing of a colleague's; tombstones past the horizon go, and a cursor from before them
 * is refused with `cursor_expired`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Deletion } from '../../src/store/load/deletions.js';
import type { LoadOptions, LoadResult } from '../../src/store/load/load.js';
import type { DataTable } from '../../src/store/schema.js';
import type { Row } from '../../src/store/sink.js';
import type { FeedType } from '../../src/store/sql/change-log.js';
import { assertRefusal } from '../support/assertions.js';
import { DIALECTS, get, qs, startHarness, WS, type Harness } from '../support/harness.js';
import { later } from '../support/random-loads.js';
import { billingToken, feedPage, feedToEnd, loadChanges, type FeedItem } from '../support/feed.js';

type Item = FeedItem;

const tombstone = (
  type: FeedType,
  id: unknown,
  version: number,
  reason: 'deleted' | 'not_visible',
): Item => ({ type, id: String(id), version, record: null, removed: { reason } });

for (const dialect of DIALECTS) {
  describe(`list_changes tombstones (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    /** Reads the feed from `cursor` (the start without one) to its end. */
    const readFeed = (token: string, cursor?: string) => feedToEnd(h.app, token, cursor);

    /** Where a reader who has read everything stands now. */
    const cursorNow = async (token: string) => (await readFeed(token)).cursor;

    /** One page from `cursor`: its items and hasMore, as the feed answers them. */
    const pageFrom = (token: string, cursor: string) => feedPage(h.app, token, cursor);

    const load = (
      rows: [DataTable, Row[]][],
      deletions: Omit<Deletion, 'file' | 'line'>[] = [],
      options: LoadOptions = {},
    ): Promise<LoadResult> => loadChanges(h, rows, deletions, options);

    const supplierToken = (code: string) => billingToken(h, code);

    it("shows staff and the worker who owned it a deleted timesheet once, at the load's version, and nothing to a billing entity", async () => {
      const [sheet] = await h.all<{ id: string }>(
        'SELECT id FROM timesheets WHERE workspace_id = ? AND worker_id = ? ORDER BY id LIMIT 1',
        WS,
        h.workerId,
      );
      const cursors = {
        staff: await cursorNow(h.tokens.staff),
        worker: await cursorNow(h.tokens.worker),
        billing: await cursorNow(h.tokens.billing),
      };
      const { version } = await load(
        [],
        [{ type: 'timesheet', id: sheet.id, deleted_at: later() }],
      );
      for (const role of ['staff', 'worker'] as const) {
        const page = await pageFrom(h.tokens[role], cursors[role]);
        assert.deepEqual(page.items, [tombstone('timesheet', sheet.id, version, 'deleted')], role);
        assert.equal(page.hasMore, false);
        // Once: nothing more after it.
        const next = await pageFrom(h.tokens[role], page.nextCursor);
        assert.deepEqual(next.items, [], role);
        // And once in the feed read from the start.
        const all = (await readFeed(h.tokens[role])).items.filter(
          (i) => i.type === 'timesheet' && i.id === sheet.id,
        );
        assert.deepEqual(all, [tombstone('timesheet', sheet.id, version, 'deleted')], role);
      }
      const billing = await pageFrom(h.tokens.billing, cursors.billing);
      assert.deepEqual(
        { items: billing.items, hasMore: billing.hasMore },
        { items: [], hasMore: false },
      );
      const gone = await get(
        h.app,
        `/api/v1/timesheets/item${qs({ id: sheet.id })}`,
        h.tokens.staff,
      );
      assert.deepEqual(gone.body.data, { item: null }, 'the record is gone');
    });

    it('never shows a billing entity the deletion of a record it could never read', async () => {
      const [expense] = await h.all<{ id: string; worker_id: string }>(
        `SELECT id, worker_id FROM expenses WHERE workspace_id = ? AND supplier_ref IS NOT NULL
           AND supplier_ref <> ? AND worker_id <> ? ORDER BY id LIMIT 1`,
        WS,
        h.supplierCode,
        h.workerId,
      );
      const billingCursor = await cursorNow(h.tokens.billing);
      const staffCursor = await cursorNow(h.tokens.staff);
      const { version } = await load(
        [],
        [{ type: 'expense', id: expense.id, deleted_at: later() }],
      );
      const billing = await pageFrom(h.tokens.billing, billingCursor);
      assert.deepEqual(
        { items: billing.items, hasMore: billing.hasMore },
        { items: [], hasMore: false },
      );
      const staff = await pageFrom(h.tokens.staff, staffCursor);
      assert.deepEqual(staff.items, [tombstone('expense', expense.id, version, 'deleted')]);
      assert.deepEqual(
        await h.all(
          'SELECT id FROM audience_changes WHERE audience = ? AND id = ?',
          `supplier:${h.supplierCode}`,
          expense.id,
        ),
        [],
      );
    });

    it('shows a billing entity the deletion of a consolidated invoice carrying its lines, and the invoice once when it comes back with them', async () => {
      const [invoice] = await h.all<Row>(
        `SELECT * FROM invoices i WHERE workspace_id = ? AND supplier_ref IS NULL
           AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id AND l.supplier_ref = ?) ORDER BY id LIMIT 1`,
        WS,
        h.supplierCode,
      );
      const lines = await h.all<Row>(
        'SELECT * FROM invoice_lines WHERE invoice_id = ? ORDER BY id',
        invoice.id,
      );
      const before = await cursorNow(h.tokens.billing);
      const deleted = await load(
        [],
        [{ type: 'invoice', id: String(invoice.id), deleted_at: later() }],
      );
      const gone = await pageFrom(h.tokens.billing, before);
      assert.deepEqual(gone.items, [tombstone('invoice', invoice.id, deleted.version, 'deleted')]);

      const back = await load([
        ['invoices', [{ ...invoice, updated_at: later() }]],
        ['invoice_lines', lines],
      ]);
      assert.equal(back.counts.invoice_lines.inserted, lines.length);
      const returned = await pageFrom(h.tokens.billing, gone.nextCursor);
      assert.deepEqual(
        returned.items.map((i) => [i.type, i.id, i.version, i.record === null]),
        [['invoice', invoice.id, back.version, false]],
      );
      // Read across both loads, the invoice comes once, as it is now; its tombstone is gone, a
      // read in its place (billing entities read invoices through these rows, DESIGN §4.16).
      const across = await pageFrom(h.tokens.billing, before);
      assert.deepEqual(
        across.items.map((i) => [i.type, i.id, i.version, i.record === null]),
        [['invoice', invoice.id, back.version, false]],
      );
      assert.deepEqual(
        await h.all(
          "SELECT reason FROM audience_changes WHERE audience = ? AND type = 'invoice' AND id = ?",
          `supplier:${h.supplierCode}`,
          invoice.id,
        ),
        [{ reason: null }],
      );
    });

    for (const [table, type] of [
      ['assignments', 'assignment'],
      ['expenses', 'expense'],
    ] as const) {
      it(`gives the old supplier's billing entity a not_visible tombstone of a moved ${type}, the new one the record, and the record again once moved back`, async () => {
        const [row] = await h.all<Row>(
          `SELECT * FROM ${table} WHERE workspace_id = ? AND supplier_ref = ? ORDER BY id LIMIT 1`,
          WS,
          h.supplierCode,
        );
        const [{ code }] = await h.all<{ code: string }>(
          'SELECT code FROM suppliers WHERE workspace_id = ? AND code <> ? ORDER BY code LIMIT 1',
          WS,
          h.supplierCode,
        );
        const other = await supplierToken(code);
        let oldCursor = await cursorNow(h.tokens.billing);
        let newCursor = await cursorNow(other);
        const moved = await load([[table, [{ ...row, supplier_ref: code, updated_at: later() }]]]);

        let old = await pageFrom(h.tokens.billing, oldCursor);
        assert.deepEqual(old.items, [tombstone(type, row.id, moved.version, 'not_visible')]);
        let fresh = await pageFrom(other, newCursor);
        assert.deepEqual(
          fresh.items.map((i) => [i.type, i.id, i.version]),
          [[type, row.id, moved.version]],
        );
        assert.equal((fresh.items[0].record?.supplierRef as { value: string }).value, code);
        oldCursor = old.nextCursor;
        newCursor = fresh.nextCursor;

        const back = await load([[table, [{ ...row, updated_at: later() }]]]);
        old = await pageFrom(h.tokens.billing, oldCursor);
        assert.deepEqual(
          old.items.map((i) => [i.type, i.id, i.version, i.record === null]),
          [[type, row.id, back.version, false]],
        );
        assert.equal((old.items[0].record?.supplierRef as { value: string }).value, h.supplierCode);
        fresh = await pageFrom(other, newCursor);
        assert.deepEqual(fresh.items, [tombstone(type, row.id, back.version, 'not_visible')]);
        // The old supplier's tombstone is gone: read from the start, the record comes once, itself.
        assert.deepEqual(
          await h.all(
            'SELECT reason FROM audience_changes WHERE audience = ? AND type = ? AND id = ?',
            `supplier:${h.supplierCode}`,
            type,
            row.id,
          ),
          [],
        );
        const all = (await readFeed(h.tokens.billing)).items.filter(
          (i) => i.type === type && i.id === row.id,
        );
        assert.deepEqual(
          all.map((i) => [i.version, i.record === null]),
          [[back.version, false]],
        );
      });
    }

    it("leaves no trace of a colleague's new assignment at the worker's supplier, and brings a supplier the worker newly reaches into its feed", async () => {
      const [{ supplier_ref: own }] = await h.all<{ supplier_ref: string }>(
        'SELECT supplier_ref FROM assignments WHERE workspace_id = ? AND worker_id = ? AND supplier_ref IS NOT NULL ORDER BY id LIMIT 1',
        WS,
        h.workerId,
      );
      const [colleague] = await h.all<Row>(
        `SELECT * FROM assignments WHERE workspace_id = ? AND worker_id <> ?
           AND worker_id NOT IN (SELECT worker_id FROM assignments WHERE supplier_ref = ?) ORDER BY id LIMIT 1`,
        WS,
        h.workerId,
        own,
      );
      let workerCursor = await cursorNow(h.tokens.worker);
      const staffCursor = await cursorNow(h.tokens.staff);
      const made = later();
      const placed = await load([
        [
          'assignments',
          [
            {
              ...colleague,
              id: 'asg_colleague_new',
              supplier_ref: own,
              created_at: made,
              updated_at: made,
            },
          ],
        ],
      ]);
      const quiet = await pageFrom(h.tokens.worker, workerCursor);
      assert.deepEqual(
        { items: quiet.items, hasMore: quiet.hasMore },
        { items: [], hasMore: false },
      );
      workerCursor = quiet.nextCursor;
      // Staff see the assignment, not the supplier: it did not change.
      const staff = await pageFrom(h.tokens.staff, staffCursor);
      assert.deepEqual(
        staff.items.map((i) => [i.type, i.id, i.version]),
        [['assignment', 'asg_colleague_new', placed.version]],
      );

      const [mine] = await h.all<Row>(
        'SELECT * FROM assignments WHERE workspace_id = ? AND worker_id = ? ORDER BY id LIMIT 1',
        WS,
        h.workerId,
      );
      const [reached] = await h.all<{ id: string; code: string }>(
        `SELECT id, code FROM suppliers WHERE workspace_id = ? AND code NOT IN
           (SELECT supplier_ref FROM assignments WHERE worker_id = ? AND supplier_ref IS NOT NULL) ORDER BY code LIMIT 1`,
        WS,
        h.workerId,
      );
      assert.ok(reached, 'a supplier the worker has no assignment with');
      const at = later();
      const assigned = await load([
        [
          'assignments',
          [
            {
              ...mine,
              id: 'asg_worker_new',
              supplier_ref: reached.code,
              created_at: at,
              updated_at: at,
            },
          ],
        ],
      ]);
      const arrived = await pageFrom(h.tokens.worker, workerCursor);
      assert.deepEqual(
        arrived.items.map((i) => [i.type, i.id, i.version, i.record === null]),
        [
          ['assignment', 'asg_worker_new', assigned.version, false],
          ['supplier', reached.id, assigned.version, false],
        ],
      );
      assert.equal((arrived.items[1].record?.code as { value: string }).value, reached.code);
      assert.equal(arrived.hasMore, false);
    });

    it('store.sweepTombstones(days) removes tombstones older than days, and a cursor from before them is expired', async () => {
      const [expense] = await h.all<{ id: string }>(
        'SELECT id FROM expenses WHERE workspace_id = ? AND worker_id = ? ORDER BY id LIMIT 1',
        WS,
        h.workerId,
      );
      const staffCursor = await cursorNow(h.tokens.staff);
      const workerCursor = await cursorNow(h.tokens.worker);
      const { version } = await load(
        [],
        [{ type: 'expense', id: expense.id, deleted_at: later() }],
      );
      assert.equal(await h.store.sweepTombstones(30), 0, 'made now: kept');
      for (const [token, cursor] of [
        [h.tokens.staff, staffCursor],
        [h.tokens.worker, workerCursor],
      ]) {
        const page = await pageFrom(token, cursor);
        assert.deepEqual(page.items, [tombstone('expense', expense.id, version, 'deleted')]);
      }

      const removed = await h.store.sweepTombstones(0);
      assert.ok(removed >= 2, `record_deletions and audience rows: ${removed}`);
      assert.deepEqual(await h.all('SELECT id FROM record_deletions'), []);
      assert.deepEqual(await h.all('SELECT id FROM audience_changes WHERE reason IS NOT NULL'), []);
      assert.deepEqual(
        await h.all("SELECT id FROM record_changes WHERE type = 'expense' AND id = ?", expense.id),
        [],
      );
      for (const [token, cursor] of [
        [h.tokens.staff, staffCursor],
        [h.tokens.worker, workerCursor],
      ]) {
        const answer = await get(h.app, `/api/v1/changes${qs({ cursor })}`, token);
        assertRefusal(answer, 'cursor_expired', 'list_changes', false);
      }
    });

    it('with tombstoneDays 0 a load removes its own tombstones at once: an older cursor is cursor_expired, a read without a cursor still works', async () => {
      // A cursor past every tombstone removed so far: at a worker changed by a later load (the
      // workers fit one page, so the cursor is that page's last item).
      const [worker] = await h.all<Row>(
        'SELECT * FROM workers WHERE workspace_id = ? AND id <> ? ORDER BY id LIMIT 1',
        WS,
        h.workerId,
      );
      const changed = await load([
        ['workers', [{ ...worker, status: 'inactive', updated_at: later() }]],
      ]);
      const workers = await get(h.app, '/api/v1/changes?type=worker', h.tokens.staff);
      assert.equal(workers.body.data.hasMore, false, workers.raw);
      assert.deepEqual(
        workers.body.data.items.slice(-1).map((i: Item) => [i.id, i.version]),
        [[worker.id, changed.version]],
      );
      const cursor = workers.body.data.nextCursor as string;
      const usable = await get(
        h.app,
        `/api/v1/changes${qs({ cursor, type: 'worker' })}`,
        h.tokens.staff,
      );
      assert.deepEqual(
        { items: usable.body.data.items, hasMore: usable.body.data.hasMore },
        { items: [], hasMore: false },
        usable.raw,
      );

      const [approval] = await h.all<{ id: string }>(
        'SELECT id FROM approval_statuses WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      );
      const { version } = await load(
        [],
        [{ type: 'approval_status', id: approval.id, deleted_at: later() }],
        { tombstoneDays: 0 },
      );
      assert.deepEqual(await h.all('SELECT id FROM record_deletions'), []);
      assert.deepEqual(await h.all('SELECT id FROM audience_changes WHERE reason IS NOT NULL'), []);
      const { value } = await h.one<{ value: string }>(
        "SELECT value FROM meta WHERE key = 'tombstone_horizon'",
      );
      assert.equal(Number(value), version);

      const expired = await get(
        h.app,
        `/api/v1/changes${qs({ cursor, type: 'worker' })}`,
        h.tokens.staff,
      );
      assertRefusal(expired, 'cursor_expired', 'list_changes', false);
      const fromStart = await get(h.app, '/api/v1/changes', h.tokens.staff);
      assert.equal(fromStart.status, 200, fromStart.raw);
      assert.equal(fromStart.body.data.status, undefined, fromStart.raw);
      assert.ok(fromStart.body.data.items.length > 0);
      assert.equal(typeof fromStart.body.data.nextCursor, 'string');

      // A read begun after the removal goes on to its end, page after page (its cursors sit at
      // versions before the horizon, but were given after it), and its last cursor keeps working.
      let next: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await get(
          h.app,
          `/api/v1/changes${qs({ cursor: next, limit: 200 })}`,
          h.tokens.staff,
        );
        assert.equal(page.status, 200, page.raw);
        assert.equal(
          page.body.data.status,
          undefined,
          `page ${pages + 1}: ${page.raw.slice(0, 200)}`,
        );
        pages++;
        next = page.body.data.nextCursor;
        if (!page.body.data.hasMore) break;
      }
      assert.ok(pages > 1, 'more than one page');
      const resumed = await get(h.app, `/api/v1/changes${qs({ cursor: next })}`, h.tokens.staff);
      assert.deepEqual(
        {
          status: resumed.status,
          items: resumed.body.data.items,
          hasMore: resumed.body.data.hasMore,
        },
        { status: 200, items: [], hasMore: false },
      );
    });
  });
}
