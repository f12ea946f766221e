import assert from 'node:assert/strict';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createMcpServer } from '../../src/mcp/server.js';
import { callerWithToken, toolsetOf } from '../../src/mcp/tools.js';
import type { Executor } from '../../src/operations/executor.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Harness } from './harness.js';
import { WS } from './harness.js';

/** A JSON-RPC `initialize` as a client over HTTP sends it first, with no SDK in between. */
export const INITIALIZE_REQUEST = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'vms-read-tests', version: '1' },
  },
};

export function newClient(): Client {
  return new Client({ name: 'vms-read-tests', version: '1.0.0' });
}

/** A client connected in memory to an MCP server of every operation, each call with `token`. */
export async function inMemoryClient(executor: Executor, token: string): Promise<Client> {
  const server = createMcpServer(executor, toolsetOf(OPERATIONS), callerWithToken(executor, token));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return client;
}

/** A valid argument object for every tool, with real ids from the seeded workspace. */
export async function toolArguments(h: Harness): Promise<Record<string, Record<string, unknown>>> {
  const id = async (sql: string) => (await h.one<{ id: string }>(sql, WS)).id;
  return {
    list_catalog: {},
    run_semantic_query: { query: { metrics: ['spend'], dimensions: ['supplier', 'currency'] } },
    list_saved_queries: { limit: 5 },
    run_saved_query: {
      savedQueryId: await id(
        'SELECT id FROM saved_queries WHERE workspace_id = ? ORDER BY id LIMIT 1',
      ),
    },
    list_workers: { limit: 3 },
    get_worker: { id: await id('SELECT id FROM workers WHERE workspace_id = ? LIMIT 1') },
    list_timesheets: { limit: 3, order: 'desc' },
    get_timesheet: {
      id: await id('SELECT timesheet_id AS id FROM time_entries WHERE workspace_id = ? LIMIT 1'),
    },
    list_invoices: { limit: 3 },
    get_invoice: {
      id: await id(`SELECT id FROM invoices WHERE workspace_id = ? AND status = 'issued' LIMIT 1`),
    },
    list_suppliers: {},
    list_assignments: { limit: 2 },
    list_expenses: { limit: 2 },
    list_approval_statuses: { limit: 2 },
  };
}

/** SPEC: the text is the `{data, request_id}` envelope and structuredContent is its `data`. */
export function assertEnvelope(result: CallToolResult): Record<string, unknown> {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  assert.equal(result.content.length, 1);
  const text = (result.content[0] as { type: string; text: string }).text;
  const envelope = JSON.parse(text);
  assert.deepEqual(Object.keys(envelope).sort(), ['data', 'request_id']);
  assert.match(envelope.request_id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(result.structuredContent, envelope.data);
  return envelope.data;
}

/** What HTTP answers as an error arrives as isError with the error body as text and no data. */
export function assertToolError(result: CallToolResult, code: string): void {
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined);
  const body = JSON.parse((result.content[0] as { text: string }).text);
  assert.deepEqual(Object.keys(body).sort(), ['error', 'request_id']);
  assert.equal(body.error.code, code);
}

/** A `tools/call` as a plain HTTP request to `/mcp` with `token`, no SDK in between. */
export function rawToolCall(
  base: string,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
}
