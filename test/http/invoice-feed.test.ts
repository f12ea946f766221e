/**
 * No trace on invoices (DESIGN §4.13, §4.16): a billing entity reads, of an invoice, its header and
 * its own supplier's lines (lineCount counts only those), so an invoice moves in its feed only when
 * one of these changes. Another supplier's line added to a consolidated invoice, or to the
 * billing entity's own invoice, leaves nothing in its feed; staff, and the supplier whose line
 * it is, see the invoice change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataTable } from '../../src/store/schema.js';
import type { Row } from '../../src/store/sink.js';
import { DIALECTS, get, qs, startHarness, WS, type Harness } from '../support/harness.js';
import { billingToken, feedPage, feedToEnd, loadChanges } from '../support/feed.js';
import { later } from '../support/random-loads.js';

let serial = 0;

for (const dialect of DIALECTS) {
  describe(`list_changes: an invoice moves for a billing entity only with what it reads (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    const load = (rows: [DataTable, Row[]][]) => loadChanges(h, rows);
    const token = (code: string) => billingToken(h, code);

    /** A new line of supplier `code` on the invoice, made from one of the invoice's lines. */
    async function newLine(invoiceId: unknown, code: string): Promise<Row> {
      const [line] = await h.all<Row>(
        'SELECT * FROM invoice_lines WHERE invoice_id = ? ORDER BY supplier_ref = ? DESC, id LIMIT 1',
        invoiceId,
        code,
      );
      return {
        ...line,
        id: `il_trace_${process.pid}_${++serial}`,
        supplier_ref: code,
        created_at: later(),
      };
    }

    /** The invoice as get_invoice serves it to the token: header, its lines and lineCount. */
    async function invoiceAs(token: string, id: unknown) {
      const answer = await get(h.app, `/api/v1/invoices/item${qs({ id: String(id) })}`, token);
      assert.equal(answer.status, 200, answer.raw);
      return answer.body.data.item as { lineCount: number; lines: { id: string }[] };
    }

    /** What each reader's feed shows after its cursor: [type, id, version] of each item. */
    async function shown(readers: { token: string; cursor: string }[]) {
      const pages = [];
      for (const reader of readers) {
        const page = await feedPage(h.app, reader.token, reader.cursor);
        assert.equal(page.hasMore, false);
        reader.cursor = page.nextCursor;
        pages.push(page.items.map((i) => [i.type, i.id, i.version]));
      }
      return pages;
    }

    const at = async (token: string) => ({ token, cursor: (await feedToEnd(h.app, token)).cursor });

    it("another supplier's line on a consolidated invoice leaves nothing in the feed of a billing entity whose lines did not change; its own line moves it", async () => {
      const [invoice] = await h.all<Row>(
        `SELECT i.* FROM invoices i WHERE i.workspace_id = ? AND i.supplier_ref IS NULL
           AND (SELECT COUNT(DISTINCT l.supplier_ref) FROM invoice_lines l WHERE l.invoice_id = i.id) >= 2
         ORDER BY i.id LIMIT 1`,
        WS,
      );
      assert.ok(invoice, 'the tiny seed has a consolidated invoice of several suppliers');
      const [a, b] = (
        await h.all<{ code: string }>(
          'SELECT DISTINCT supplier_ref AS code FROM invoice_lines WHERE invoice_id = ? ORDER BY code',
          invoice.id,
        )
      ).map((r) => r.code);
      const readers = [
        await at(await token(a)),
        await at(await token(b)),
        await at(h.tokens.staff),
      ];
      const seenByA = await invoiceAs(readers[0].token, invoice.id);

      const ofB = await load([['invoice_lines', [await newLine(invoice.id, b)]]]);
      const moved = [['invoice', invoice.id, ofB.version]];
      assert.deepEqual(await shown(readers), [[], moved, moved]);
      assert.deepEqual(await invoiceAs(readers[0].token, invoice.id), seenByA, 'A reads the same');

      const ofA = await load([['invoice_lines', [await newLine(invoice.id, a)]]]);
      const movedAgain = [['invoice', invoice.id, ofA.version]];
      assert.deepEqual(await shown(readers), [movedAgain, [], movedAgain]);
      assert.equal(
        (await invoiceAs(readers[0].token, invoice.id)).lineCount,
        seenByA.lineCount + 1,
      );

      // A header change is read by every billing entity of the invoice, with or without lines.
      const header = await load([
        ['invoices', [{ ...invoice, status: 'void', updated_at: later() }]],
        ['invoice_lines', [await newLine(invoice.id, b)]],
      ]);
      const changed = [['invoice', invoice.id, header.version]];
      assert.deepEqual(await shown(readers), [changed, changed, changed]);
    });

    it("another supplier's line on a billing entity's own invoice leaves nothing in either billing entity's feed", async () => {
      const [invoice] = await h.all<Row>(
        `SELECT * FROM invoices i WHERE workspace_id = ? AND supplier_ref IS NOT NULL
           AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id) ORDER BY id LIMIT 1`,
        WS,
      );
      const own = String(invoice.supplier_ref);
      const [{ code: other }] = await h.all<{ code: string }>(
        'SELECT code FROM suppliers WHERE workspace_id = ? AND code <> ? ORDER BY code LIMIT 1',
        WS,
        own,
      );
      const readers = [
        await at(await token(own)),
        await at(await token(other)),
        await at(h.tokens.staff),
      ];
      const foreign = await load([['invoice_lines', [await newLine(invoice.id, other)]]]);
      assert.deepEqual(await shown(readers), [[], [], [['invoice', invoice.id, foreign.version]]]);

      const mine = await load([['invoice_lines', [await newLine(invoice.id, own)]]]);
      const moved = [['invoice', invoice.id, mine.version]];
      assert.deepEqual(await shown(readers), [moved, [], moved]);
    });

    it('a billing entity reading from the start gets each of its invoices once, as its list serves it', async () => {
      const { items } = await feedToEnd(h.app, h.tokens.billing);
      const invoices = items.filter((i) => i.type === 'invoice').map((i) => i.id);
      assert.equal(new Set(invoices).size, invoices.length, 'each once');
      const listed: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const answer = await get(h.app, `/api/v1/invoices${qs({ cursor })}`, h.tokens.billing);
        listed.push(...(answer.body.data.items as { id: string }[]).map((i) => i.id));
        if (!answer.body.data.hasMore) break;
        cursor = answer.body.data.nextCursor;
      }
      assert.deepEqual(invoices.sort(), listed.sort());
    });
  });
}
