import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { get, qs, startHarness, WS, type Harness, DIALECTS } from '../support/harness.js';

for (const dialect of DIALECTS) {
  describe(`resource gets (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    it('wraps every answer as {data, request_id} with x-request-id', async () => {
      const answer = await get(h.app, '/api/v1/workers?limit=1', h.tokens.staff);
      assert.deepEqual(Object.keys(answer.body).sort(), ['data', 'request_id']);
      assert.equal(answer.headers['x-request-id'], answer.body.request_id);
      const again = await get(h.app, '/api/v1/workers?limit=1', h.tokens.staff);
      assert.notEqual(again.body.request_id, answer.body.request_id);
    });

    it('get_timesheet: entries oldest first, at most 1,000, entriesTruncated on the >1,000-entry timesheet', async () => {
      const big = await h.one<{ id: string; n: number }>(
        `SELECT timesheet_id AS id, COUNT(*) AS n FROM time_entries WHERE workspace_id = ? GROUP BY timesheet_id HAVING COUNT(*) > 1000 ORDER BY timesheet_id LIMIT 1`,
        WS,
      );
      const item = (
        await get(h.app, `/api/v1/timesheets/item${qs({ id: big.id })}`, h.tokens.staff)
      ).body.data.item;
      assert.equal(item.timesheet.id, big.id);
      assert.equal(item.entries.length, 1000);
      assert.equal(item.entriesTruncated, true);
      const expected = (
        await h.all<{ id: string }>(
          `SELECT id FROM time_entries WHERE timesheet_id = ? ORDER BY created_at, id LIMIT 1000`,
          big.id,
        )
      ).map((r) => r.id);
      assert.deepEqual(
        item.entries.map((e: { id: string }) => e.id),
        expected,
      );
    });

    it('get_timesheet: a small timesheet is whole and not truncated', async () => {
      const small = await h.one<{ id: string; n: number }>(
        `SELECT timesheet_id AS id, COUNT(*) AS n FROM time_entries WHERE workspace_id = ? GROUP BY timesheet_id HAVING COUNT(*) BETWEEN 1 AND 50 ORDER BY timesheet_id LIMIT 1`,
        WS,
      );
      const item = (
        await get(h.app, `/api/v1/timesheets/item${qs({ id: small.id })}`, h.tokens.staff)
      ).body.data.item;
      assert.equal(item.entries.length, small.n);
      assert.equal(item.entriesTruncated, false);
    });

    it('get_invoice: lines oldest first, at most 500, linesTruncated and the true lineCount on the >500-line invoice', async () => {
      const big = await h.one<{ id: string; n: number }>(
        `SELECT invoice_id AS id, COUNT(*) AS n FROM invoice_lines WHERE workspace_id = ? GROUP BY invoice_id HAVING COUNT(*) > 500 ORDER BY invoice_id LIMIT 1`,
        WS,
      );
      const item = (await get(h.app, `/api/v1/invoices/item${qs({ id: big.id })}`, h.tokens.staff))
        .body.data.item;
      assert.equal(item.lines.length, 500);
      assert.equal(item.linesTruncated, true);
      assert.equal(item.lineCount, big.n);
      const expected = (
        await h.all<{ id: string }>(
          `SELECT id FROM invoice_lines WHERE invoice_id = ? ORDER BY created_at, id LIMIT 500`,
          big.id,
        )
      ).map((r) => r.id);
      assert.deepEqual(
        item.lines.map((l: { id: string }) => l.id),
        expected,
      );
    });

    it('get_invoice: a credit note carries a negative total and the corrected invoice', async () => {
      const credit = await h.one<{ id: string }>(
        `SELECT id FROM invoices WHERE workspace_id = ? AND type = 'credit_note' LIMIT 1`,
        WS,
      );
      const invoice = (
        await get(h.app, `/api/v1/invoices/item${qs({ id: credit.id })}`, h.tokens.staff)
      ).body.data.item.invoice;
      assert.ok(invoice.totalCents < 0);
      assert.equal(typeof invoice.correctsInvoiceRef, 'string');
    });

    it('get_invoice: a draft has a null number', async () => {
      const draft = await h.one<{ id: string }>(
        `SELECT id FROM invoices WHERE workspace_id = ? AND status = 'draft' LIMIT 1`,
        WS,
      );
      const invoice = (
        await get(h.app, `/api/v1/invoices/item${qs({ id: draft.id })}`, h.tokens.staff)
      ).body.data.item.invoice;
      assert.equal(invoice.number, null);
      assert.equal(invoice.issuedAt, null);
    });

    it('answers /healthz without a token', async () => {
      const answer = await get(h.app, '/healthz');
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { status: 'ok' });
    });
  });
}
