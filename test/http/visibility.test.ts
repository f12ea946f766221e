import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { get, qs, startHarness, OTHER_WS, WS, type Harness, DIALECTS } from '../support/harness.js';

/** Reads a whole list with a token (pages of 50). */
async function all(h: Harness, path: string, token: string) {
  const items: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  let cursor: string | undefined;
  do {
    const data = (await get(h.app, `${path}${qs({ cursor })}`, token)).body.data;
    items.push(...data.items);
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

for (const dialect of DIALECTS) {
  describe(`role visibility (${dialect})`, () => {
    let h: Harness;
    const ids = async (sql: string, ...args: unknown[]) =>
      (await h.all<{ id: string }>(sql, ...args)).map((r) => r.id).sort();
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    describe('a worker token', () => {
      it('lists only its own worker record', async () => {
        assert.deepEqual(
          (await all(h, '/api/v1/workers', h.tokens.worker)).map((w) => w.id),
          [h.workerId],
        );
      });
      it('lists only its own timesheets, assignments, expenses and approval statuses', async () => {
        const own = async (table: string) =>
          await ids(
            `SELECT id FROM ${table} WHERE workspace_id = ? AND worker_id = ?`,
            WS,
            h.workerId,
          );
        for (const [path, table] of [
          ['/api/v1/timesheets', 'timesheets'],
          ['/api/v1/assignments', 'assignments'],
          ['/api/v1/expenses', 'expenses'],
          ['/api/v1/approval-statuses', 'approval_statuses'],
        ]) {
          const seen = (await all(h, path, h.tokens.worker)).map((r) => r.id).sort();
          assert.deepEqual(seen, await own(table), path);
        }
        assert.ok((await own('timesheets')).length > 0);
      });
      it('sees the suppliers of its assignments only', async () => {
        const expected = await ids(
          `SELECT s.id FROM suppliers s WHERE s.workspace_id = ? AND s.code IN (SELECT supplier_ref FROM assignments WHERE worker_id = ?)`,
          WS,
          h.workerId,
        );
        assert.deepEqual(
          (await all(h, '/api/v1/suppliers', h.tokens.worker)).map((r) => r.id).sort(),
          expected,
        );
      });
      it('sees no invoices whatever its scopes', async () => {
        assert.deepEqual(await all(h, '/api/v1/invoices', h.tokens.worker), []);
        const invoice = (
          await ids(`SELECT id FROM invoices WHERE workspace_id = ? LIMIT 1`, WS)
        )[0];
        assert.deepEqual(
          (await get(h.app, `/api/v1/invoices/item${qs({ id: invoice })}`, h.tokens.worker)).body
            .data,
          { item: null },
        );
      });
      it("gets {item: null} for another worker and another worker's timesheet", async () => {
        const other = (
          await ids(
            `SELECT id FROM workers WHERE workspace_id = ? AND id <> ? LIMIT 1`,
            WS,
            h.workerId,
          )
        )[0];
        assert.deepEqual(
          (await get(h.app, `/api/v1/workers/item${qs({ id: other })}`, h.tokens.worker)).body.data,
          { item: null },
        );
        const sheet = (
          await ids(
            `SELECT id FROM timesheets WHERE workspace_id = ? AND worker_id <> ? LIMIT 1`,
            WS,
            h.workerId,
          )
        )[0];
        assert.deepEqual(
          (await get(h.app, `/api/v1/timesheets/item${qs({ id: sheet })}`, h.tokens.worker)).body
            .data,
          { item: null },
        );
        const own = (
          await ids(`SELECT id FROM timesheets WHERE worker_id = ? LIMIT 1`, h.workerId)
        )[0];
        assert.equal(
          (await get(h.app, `/api/v1/timesheets/item${qs({ id: own })}`, h.tokens.worker)).body.data
            .item.timesheet.id,
          own,
        );
      });
    });

    describe('a billing-entity token', () => {
      it("lists its supplier's invoices and the consolidated invoices carrying one of its lines", async () => {
        const expected = await ids(
          `SELECT i.id FROM invoices i WHERE i.workspace_id = ? AND (i.supplier_ref = ? OR (i.supplier_ref IS NULL AND EXISTS
             (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id AND l.supplier_ref = ?)))`,
          WS,
          h.supplierCode,
          h.supplierCode,
        );
        const seen = await all(h, '/api/v1/invoices', h.tokens.billing);
        assert.deepEqual(seen.map((r) => r.id).sort(), expected);
        assert.ok(
          seen.some((i) => i.supplierRef === null),
          'a consolidated invoice is visible',
        );
      });
      it('sees only its own lines on a consolidated invoice, and lineCount counts only those', async () => {
        const invoice = await h.one<{ id: string }>(
          `SELECT i.id FROM invoices i WHERE i.workspace_id = ? AND i.grouping_rule = 'consolidated' AND EXISTS
               (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id AND l.supplier_ref = ?) AND EXISTS
               (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id AND l.supplier_ref <> ?) LIMIT 1`,
          WS,
          h.supplierCode,
          h.supplierCode,
        );
        const own = await ids(
          `SELECT id FROM invoice_lines WHERE invoice_id = ? AND supplier_ref = ?`,
          invoice.id,
          h.supplierCode,
        );
        const item = (
          await get(h.app, `/api/v1/invoices/item${qs({ id: invoice.id })}`, h.tokens.billing)
        ).body.data.item;
        assert.equal(item.lineCount, own.length);
        if (!item.linesTruncated)
          assert.deepEqual(item.lines.map((l: { id: string }) => l.id).sort(), own);
        for (const line of item.lines) assert.equal(line.supplierRef.value, h.supplierCode);
        const staff = (
          await get(h.app, `/api/v1/invoices/item${qs({ id: invoice.id })}`, h.tokens.staff)
        ).body.data.item;
        assert.ok(staff.lineCount > item.lineCount);
      });
      it("gets {item: null} for another supplier's invoice", async () => {
        const other = (
          await ids(
            `SELECT id FROM invoices WHERE workspace_id = ? AND supplier_ref IS NOT NULL AND supplier_ref <> ? LIMIT 1`,
            WS,
            h.supplierCode,
          )
        )[0];
        assert.deepEqual(
          (await get(h.app, `/api/v1/invoices/item${qs({ id: other })}`, h.tokens.billing)).body
            .data,
          { item: null },
        );
      });
      it('sees no workers or timesheets, and only its own supplier record, assignments and expenses', async () => {
        assert.deepEqual(await all(h, '/api/v1/workers', h.tokens.billing), []);
        assert.deepEqual(await all(h, '/api/v1/timesheets', h.tokens.billing), []);
        assert.deepEqual(
          (await all(h, '/api/v1/suppliers', h.tokens.billing)).map((s) => s.id),
          [h.supplierId],
        );
        for (const [path, table] of [
          ['/api/v1/assignments', 'assignments'],
          ['/api/v1/expenses', 'expenses'],
          ['/api/v1/approval-statuses', 'approval_statuses'],
        ]) {
          const expected = await ids(
            `SELECT id FROM ${table} WHERE workspace_id = ? AND supplier_ref = ?`,
            WS,
            h.supplierCode,
          );
          assert.deepEqual(
            (await all(h, path, h.tokens.billing)).map((r) => r.id).sort(),
            expected,
            path,
          );
        }
      });
    });

    describe('another workspace', () => {
      it('gets {item: null} for ids of another workspace, byte-for-byte like an absent id', async () => {
        for (const [path, table] of [
          ['/api/v1/workers/item', 'workers'],
          ['/api/v1/timesheets/item', 'timesheets'],
          ['/api/v1/invoices/item', 'invoices'],
        ]) {
          const foreign = (
            await ids(`SELECT id FROM ${table} WHERE workspace_id = ? LIMIT 1`, WS)
          )[0];
          const a = await get(h.app, `${path}${qs({ id: foreign })}`, h.tokens.otherWorkspaceStaff);
          const b = await get(
            h.app,
            `${path}${qs({ id: 'no-such-id' })}`,
            h.tokens.otherWorkspaceStaff,
          );
          assert.equal(a.status, 200);
          assert.equal(a.raw.replace(a.body.request_id, ''), b.raw.replace(b.body.request_id, ''));
          assert.deepEqual(a.body.data, { item: null });
        }
      });
      it('lists only its own workspace', async () => {
        const seen = (await all(h, '/api/v1/workers', h.tokens.otherWorkspaceStaff))
          .map((w) => w.id)
          .sort();
        assert.deepEqual(
          seen,
          await ids(`SELECT id FROM workers WHERE workspace_id = ?`, OTHER_WS),
        );
      });
    });
  });
}
