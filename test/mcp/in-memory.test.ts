import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemoryTransport, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { createMcpServer } from '../../src/mcp/server.js';
import { callerWithToken, toolsetOf } from '../../src/mcp/tools.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { createExecutor } from '../../src/service.js';
import { startHarness, type Harness, DIALECTS } from '../support/harness.js';
import {
  assertEnvelope,
  assertToolError,
  inMemoryClient,
  newClient,
  toolArguments,
} from '../support/mcp-client.js';

for (const dialect of DIALECTS) {
  describe(`MCP tools over an in-memory transport (${dialect})`, () => {
    let h: Harness;
    const clients: Client[] = [];
    /** A connected client whose every call carries `token`. */
    async function connect(token: string): Promise<Client> {
      const executor = await createExecutor({
        store: h.store,
        secret: 'test-secret',
        quotaPerMinute: 0,
      });
      const client = await inMemoryClient(executor, token);
      clients.push(client);
      return client;
    }
    const call = async (client: Client, name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;

    before(async () => {
      h = await startHarness({ dialect });
    });
    after(async () => {
      for (const c of clients) await c.close();
      await h.close();
    });

    it('lists exactly the operations as tools, with schemas and read-only annotations', async () => {
      const { tools } = await (await connect(h.tokens.staff)).listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), OPERATIONS.map((op) => op.name).sort());
      assert.equal(tools.length, OPERATIONS.length);
      for (const tool of tools) {
        assert.ok(tool.description && tool.description.length > 40, tool.name);
        // Issue 13: a short human title, and a description that says when to use the tool.
        assert.ok(tool.title && tool.title.length <= 40, `${tool.name} has a title`);
        assert.match(tool.description, /\bUse\b/, `${tool.name} says when to use it`);
        if ('cursor' in (tool.inputSchema.properties ?? {}))
          assert.match(tool.description, /nextCursor/, `${tool.name} says how paging works`);
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(
          (tool.inputSchema as { additionalProperties?: boolean }).additionalProperties,
          false,
          tool.name,
        );
        assert.equal(tool.outputSchema?.type, 'object');
        assert.deepEqual(tool.annotations, {
          readOnlyHint: true,
          idempotentHint: true,
          openWorldHint: false,
        });
      }
    });

    it('answers every tool with the {data, request_id} text and data as structuredContent, checked against outputSchema', async () => {
      const client = await connect(h.tokens.staff);
      await client.listTools(); // the SDK client validates structuredContent against the listed outputSchema
      for (const [name, args] of Object.entries(await toolArguments(h))) {
        const data = assertEnvelope(await call(client, name, args));
        assert.ok(
          !('status' in data) || data.status !== 'refused',
          `${name} refused: ${JSON.stringify(data)}`,
        );
      }
    });

    it('has the SDK client reject structuredContent that does not match the outputSchema', async () => {
      // A toolset whose list_workers promises a member the data lacks: the check must fail.
      const toolset = toolsetOf(OPERATIONS);
      const broken = {
        ...toolset,
        tools: toolset.tools.map((t) =>
          t.name === 'list_workers'
            ? { ...t, outputSchema: { type: 'object' as const, required: ['nonexistent'] } }
            : t,
        ),
      };
      const executor = await createExecutor({
        store: h.store,
        secret: 'test-secret',
        quotaPerMinute: 0,
      });
      const server = createMcpServer(executor, broken, callerWithToken(executor, h.tokens.staff));
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = newClient();
      await client.connect(clientSide);
      clients.push(client);
      await client.listTools();
      await assert.rejects(
        call(client, 'list_workers', { limit: 1 }),
        /does not match the tool's output schema|output schema/i,
      );
    });

    it('gives the same data as the HTTP API', async () => {
      const client = await connect(h.tokens.staff);
      const viaMcp = assertEnvelope(await call(client, 'list_workers', { limit: 3 }));
      const viaHttp = JSON.parse(
        (
          await h.app.inject({
            url: '/api/v1/workers?limit=3',
            headers: { authorization: `Bearer ${h.tokens.staff}` },
          })
        ).body,
      ).data;
      assert.deepEqual({ ...viaMcp, nextCursor: null }, { ...viaHttp, nextCursor: null });
    });

    it('returns a refusal as a normal result', async () => {
      const client = await connect(h.tokens.staff);
      await client.listTools();
      const data = assertEnvelope(await call(client, 'list_workers', { cursor: 'garbage' }));
      assert.equal(data.status, 'refused');
      assert.equal(data.code, 'invalid_cursor');
      const report = assertEnvelope(
        await call(client, 'run_semantic_query', { query: { metrics: ['spnd'] } }),
      );
      assert.equal(report.code, 'unknown_metric');
    });

    it('answers isError for invalid arguments, a missing scope, and a worker token on a report tool', async () => {
      const staff = await connect(h.tokens.staff);
      assertToolError(await call(staff, 'list_workers', { limit: 0 }), 'not_found');
      assertToolError(await call(staff, 'list_workers', { limit: '5' }), 'not_found');
      assertToolError(await call(staff, 'get_worker', {}), 'not_found');
      assertToolError(
        await call(staff, 'run_semantic_query', { query: { metrics: ['spend'] }, extra: true }),
        'not_found',
      );
      assertToolError(
        await call(await connect(h.tokens.programOnly), 'list_workers', {}),
        'insufficient_scope',
      );
      assertToolError(await call(await connect(h.tokens.worker), 'list_catalog', {}), 'forbidden');
      assertToolError(
        await call(await connect('vmsr_' + 'A'.repeat(43)), 'list_workers', {}),
        'unauthorized',
      );
    });

    it('treats an unknown tool as a protocol error (-32602), not a tool result', async () => {
      const client = await connect(h.tokens.staff);
      await assert.rejects(
        call(client, 'drop_tables', {}),
        (error: unknown) =>
          error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams,
      );
    });

    it('applies the same visibility as HTTP: a worker token sees only itself', async () => {
      const data = assertEnvelope(await call(await connect(h.tokens.worker), 'list_workers', {}));
      assert.deepEqual(
        (data.items as { id: string }[]).map((w) => w.id),
        [h.workerId],
      );
    });
  });
}
