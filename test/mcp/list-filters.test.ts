import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { startHarness, WS, type Harness, DIALECTS } from '../support/harness.js';
import { assertEnvelope, assertToolError, inMemoryClient } from '../support/mcp-client.js';

/** DESIGN §4.15 over MCP: the tools' input schemas carry the filters, and calls honour them. */
for (const dialect of DIALECTS) {
  describe(`list filters as MCP tool arguments (${dialect})`, () => {
    let h: Harness;
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;

    before(async () => {
      h = await startHarness({ dialect });
      client = await inMemoryClient(h.executor, h.tokens.staff);
    });
    after(async () => {
      await client.close();
      await h.close();
    });

    it('list tools publish their filters, each described, with enumerations listed', async () => {
      const { tools } = await client.listTools();
      const invoices = tools.find((t) => t.name === 'list_invoices')!;
      const properties = invoices.inputSchema.properties as Record<string, Record<string, unknown>>;
      for (const name of ['status', 'type', 'supplierId', 'number', 'periodFrom', 'periodTo'])
        assert.equal(typeof properties[name]?.description, 'string', name);
      assert.deepEqual(
        (properties.status.anyOf as { const: string }[]).map((b) => b.const),
        ['draft', 'issued', 'pushed', 'void'],
      );
      assert.equal(properties.periodFrom.format, 'date');
      assert.match(invoices.description ?? '', /filters, combined with AND: status, type/);
      assert.deepEqual(invoices.inputSchema.required ?? [], []);
    });

    it('a call with filters answers the filtered page, and its cursor only with them', async () => {
      const [{ n }] = await h.all<{ n: number | string }>(
        "SELECT COUNT(*) AS n FROM timesheets WHERE workspace_id = ? AND status = 'submitted'",
        WS,
      );
      assert.ok(Number(n) > 2);
      const first = assertEnvelope(
        await call('list_timesheets', { status: 'submitted', limit: 2, order: 'desc' }),
      ) as { items: { status: string }[]; nextCursor: string };
      assert.deepEqual(
        first.items.map((i) => i.status),
        ['submitted', 'submitted'],
      );
      const next = assertEnvelope(
        await call('list_timesheets', {
          status: 'submitted',
          limit: 2,
          order: 'desc',
          cursor: first.nextCursor,
        }),
      ) as { items: { status: string }[] };
      assert.ok(next.items.length > 0 && next.items.every((i) => i.status === 'submitted'));
      const refused = assertEnvelope(
        await call('list_timesheets', { limit: 2, order: 'desc', cursor: first.nextCursor }),
      );
      assert.equal(refused.code, 'invalid_cursor');
    });

    it('a bad filter is the not_found tool error, as on HTTP', async () => {
      assertToolError(await call('list_invoices', { status: 'paid' }), 'not_found');
      assertToolError(await call('list_invoices', { periodFrom: '2024-02-30' }), 'not_found');
      assertToolError(await call('list_invoices', { supplierId: '' }), 'not_found');
      assertToolError(
        await call('list_invoices', { periodFrom: '2024-03-01', periodTo: '2024-02-01' }),
        'not_found',
      );
      assertToolError(await call('list_workers', { number: 'INV-1' }), 'not_found');
      assertToolError(await call('list_timesheets', { status: ['draft'] }), 'not_found');
    });
  });
}
