/**
 * Both eras of MCP on each transport (issue 24, item 1): a client of the SDK v2 pinned to the
 * stateless revision 2026-07-28 (no initialize; an envelope in every request) and one of today's
 * 2025-era handshake, on the same /mcp and the same `vms-read mcp`, list the same tools and get
 * the same answers; the modern path keeps the fixed error texts and the quota per request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MODERN_PROTOCOL_VERSIONS } from '../../src/http/mcp-modern.js';
import { REPORT_VIEW_URI } from '../../src/mcp/report-view.js';
import { CLI } from '../support/cli.js';
import { startHarness, type Harness } from '../support/harness.js';
import { assertEnvelope, newClient } from '../support/mcp-client.js';
import { OPERATIONS } from '../../src/operations/registry.js';

/** A client that speaks only the given modern revision (no fallback to the 2025 handshake). */
const modernClient = (revision: string) =>
  new Client(
    { name: 'vms-read-tests', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: revision } } },
  );

/** The same calls on any connected client: the tools, one page of two workers, the report view. */
async function exercise(client: Client) {
  const tools = (await client.listTools()).tools;
  const resources = (await client.listResources()).resources;
  const view = (await client.readResource({ uri: REPORT_VIEW_URI })).contents[0] as {
    mimeType: string;
    text: string;
  };
  const data = assertEnvelope(
    (await client.callTool({
      name: 'list_workers',
      arguments: { limit: 2 },
    })) as CallToolResult,
  );
  return {
    names: tools.map((t) => t.name).sort(),
    titles: tools.every((t) => !!t.title),
    metas: tools.map((t) => t._meta ?? null),
    data,
    resources,
    view,
  };
}

/** A client pinned to `revision` and a 2025-era one, each on its own transport: same tools, same page. */
async function servesBothAlike(revision: string, transport: () => Transport) {
  const modern = modernClient(revision);
  await modern.connect(transport());
  const legacy = newClient();
  await legacy.connect(transport());
  try {
    assert.equal(modern.getProtocolEra(), 'modern');
    assert.equal(legacy.getProtocolEra(), 'legacy');
    const [a, b] = [await exercise(modern), await exercise(legacy)];
    assert.equal(a.names.length, OPERATIONS.length);
    assert.ok(a.titles);
    assert.deepEqual(a.names, b.names);
    assert.deepEqual(a.data.items, b.data.items);
    assert.deepEqual(a.metas, b.metas);
    assert.deepEqual(
      a.resources.map((r) => r.uri),
      [REPORT_VIEW_URI],
    );
    assert.deepEqual(a.resources, b.resources);
    assert.equal(a.view.mimeType, 'text/html;profile=mcp-app');
    assert.match(a.view.text, /^<!doctype html>/);
    assert.deepEqual(a.view, b.view);
  } finally {
    await modern.close();
    await legacy.close();
  }
}

describe('MCP protocol revisions over streamable HTTP', () => {
  let h: Harness;
  let url: URL;
  before(async () => {
    h = await startHarness();
    url = new URL(`${await h.app.listen({ host: '127.0.0.1', port: 0 })}/mcp`);
  });
  after(() => h.close());
  const transport = (token = h.tokens.staff) =>
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });

  for (const revision of MODERN_PROTOCOL_VERSIONS) {
    it(`serves ${revision} and the 2025 handshake alike`, () =>
      servesBothAlike(revision, transport));

    it(`negotiates ${revision} on its own when the client offers both`, async () => {
      const client = new Client(
        { name: 'vms-read-tests', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(transport());
      try {
        assert.equal(client.getProtocolEra(), 'modern');
      } finally {
        await client.close();
      }
    });

    it(`${revision}: an unknown tool is -32602 in fixed words; a bad token is 401 before any`, async () => {
      const client = modernClient(revision);
      await client.connect(transport());
      try {
        const error = await client
          .callTool({ name: `ZQmarker${'x'.repeat(300)}`, arguments: {} })
          .then(
            () => assert.fail('expected an error'),
            (e: unknown) => e,
          );
        assert.ok(error instanceof ProtocolError);
        assert.equal(error.code, -32602);
        assert.equal(error.message, 'Unknown tool: call tools/list for the tool names.');
        const missing = await client.readResource({ uri: 'ui://vms-read/ZQmarker.html' }).then(
          () => assert.fail('expected an error'),
          (e: unknown) => e as ProtocolError,
        );
        assert.equal(missing.code, -32602);
        assert.equal(missing.message, 'Resource not found: call resources/list for the resources.');
      } finally {
        await client.close();
      }
      const refused = modernClient(revision);
      await assert.rejects(refused.connect(transport(`vmsr_${'B'.repeat(43)}`)));
    });
  }
});

describe('MCP protocol revisions over stdio (the built CLI)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());
  const transport = () =>
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--db', h.db, '--token', h.tokens.staff],
      stderr: 'pipe',
    });

  for (const revision of MODERN_PROTOCOL_VERSIONS) {
    it(`serves ${revision} and the 2025 handshake alike`, () =>
      servesBothAlike(revision, transport));
  }
});
