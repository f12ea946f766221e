import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI } from '../support/cli.js';
import { startHarness, type Harness, DIALECTS } from '../support/harness.js';
import { assertEnvelope, assertToolError, newClient } from '../support/mcp-client.js';
import { OPERATIONS } from '../../src/operations/registry.js';

for (const dialect of DIALECTS) {
  describe(`MCP over stdio (the built CLI) (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    it('lists 15 tools and answers a call with nothing but protocol on stdout', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--db', h.db, '--token', h.tokens.staff],
        stderr: 'pipe',
      });
      const client = newClient();
      await client.connect(transport); // any non-protocol line on stdout would break this framing
      try {
        assert.equal((await client.listTools()).tools.length, OPERATIONS.length);
        const data = assertEnvelope(
          (await client.callTool({ name: 'list_suppliers', arguments: {} })) as CallToolResult,
        );
        assert.ok((data.items as unknown[]).length > 0);
        const report = assertEnvelope(
          (await client.callTool({
            name: 'run_semantic_query',
            arguments: { query: { metrics: ['invoice_count'] } },
          })) as CallToolResult,
        );
        assert.equal(report.status, 'ok');
      } finally {
        await client.close();
      }
    });

    it('takes the token from VMS_READ_TOKEN and refuses a bad one per call', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--db', h.db],
        env: {
          ...(process.env as Record<string, string>),
          VMS_READ_TOKEN: `vmsr_${'B'.repeat(43)}`,
        },
        stderr: 'pipe',
      });
      const client = newClient();
      await client.connect(transport);
      try {
        assertToolError(
          (await client.callTool({ name: 'list_workers', arguments: {} })) as CallToolResult,
          'unauthorized',
        );
      } finally {
        await client.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`MCP over streamable HTTP at /mcp (${dialect})`, () => {
    let h: Harness;
    let base: string;
    before(async () => {
      h = await startHarness({ dialect });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    const connect = async (token: string) => {
      const client = newClient();
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };

    it('lists tools and answers calls through the same executor as the API', async () => {
      const client = await connect(h.tokens.staff);
      try {
        assert.equal((await client.listTools()).tools.length, OPERATIONS.length);
        const data = assertEnvelope(
          (await client.callTool({
            name: 'list_workers',
            arguments: { limit: 2 },
          })) as CallToolResult,
        );
        assert.equal((data.items as unknown[]).length, 2);
      } finally {
        await client.close();
      }
      const worker = await connect(h.tokens.worker);
      try {
        assertToolError(
          (await worker.callTool({
            name: 'run_semantic_query',
            arguments: { query: { metrics: ['spend'] } },
          })) as CallToolResult,
          'forbidden',
        );
      } finally {
        await worker.close();
      }
    });

    const rpc = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });

    it("answers 401 with a challenge pointing at the MCP endpoint's resource metadata (RFC 9728)", async () => {
      const response = await rpc({});
      assert.equal(response.status, 401);
      assert.equal((await response.json()).error.code, 'unauthorized');
      const challenge = response.headers.get('www-authenticate') ?? '';
      const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
      assert.equal(url, `${base}/.well-known/oauth-protected-resource/mcp`);
      const metadata = await (await fetch(url as string)).json();
      assert.equal(metadata.resource, `${base}/mcp`);
      assert.deepEqual(metadata.bearer_methods_supported, ['header']);
      assert.ok(metadata.scopes_supported.includes('read:financial'));
    });

    it('answers 403 for a foreign Origin, and accepts its own origin', async () => {
      const foreign = await rpc({
        authorization: `Bearer ${h.tokens.staff}`,
        origin: 'http://evil.example',
      });
      assert.equal(foreign.status, 403);
      assert.equal((await foreign.json()).error.code, 'forbidden');
      const own = await rpc({ authorization: `Bearer ${h.tokens.staff}`, origin: base });
      assert.equal(own.status, 200);
    });

    it('answers 405 to GET', async () => {
      const response = await fetch(`${base}/mcp`, {
        headers: { authorization: `Bearer ${h.tokens.staff}` },
      });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal((await response.json()).error.code, 'method_not_allowed');
    });
  });
}
