/**
 * The direct answer to a plain MCP tools/call (src/http/mcp-tool-call.ts): which requests take
 * it (only those the SDK would take as they are; the rest go through the SDK, whose own tests,
 * conformance included, keep them right), and that its bytes are the SDK's answer: the same
 * result (text, structuredContent, the trust marks in _meta) under the same JSON-RPC members,
 * valid by the SDK's schemas.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CallToolResultSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/core';
import type { FastifyRequest } from 'fastify';
import { directToolCall, toolCallResponse } from '../../src/http/mcp-tool-call.js';
import SEED_EXAMPLES from '../../src/http/openapi/seed-examples.json' with { type: 'json' };
import { toolsetOf } from '../../src/mcp/tools.js';
import { OPERATIONS } from '../../src/operations/registry.js';

const toolset = toolsetOf(OPERATIONS);
const examples = SEED_EXAMPLES as Record<string, { response: { data: unknown } }>;
const ACCEPT = 'application/json, text/event-stream';

/** A request as the route sees it; `accept: null` sends no Accept header. */
const requestOf = (body: unknown, accept: string | null = ACCEPT) =>
  ({ body, headers: accept === null ? {} : { accept } }) as unknown as FastifyRequest;
const call = (extra: Record<string, unknown> = {}, params: unknown = { name: 'list_workers' }) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params,
  ...extra,
});

describe('MCP tools/call answered directly', () => {
  it('takes a single well-formed call of a known tool from a client that accepts both types', () => {
    assert.deepEqual(directToolCall(requestOf(call()), toolset), {
      id: 1,
      params: { name: 'list_workers' },
    });
    const withArgs = call({ id: 'a-string-id' }, { name: 'get_worker', arguments: { id: 'w1' } });
    assert.equal(directToolCall(requestOf(withArgs), toolset)?.id, 'a-string-id');
  });

  it('leaves everything else to the SDK', () => {
    const others: [string, unknown, (string | null)?][] = [
      ['no event streams accepted', call(), 'application/json'],
      ['no Accept at all', call(), null],
      ['another method', { ...call(), method: 'tools/list' }],
      ['a notification (no id)', { jsonrpc: '2.0', method: 'tools/call', params: {} }],
      ['an id that is no integer', call({ id: 1.5 })],
      ['a member JSON-RPC does not have', call({ extra: true })],
      ['not JSON-RPC 2.0', call({ jsonrpc: '1.0' })],
      ['a batch', [call()]],
      ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
      ['an unknown tool', call({}, { name: 'drop_tables' })],
      ['arguments that are no object', call({}, { name: 'list_workers', arguments: [1] })],
      ['a task-augmented call', call({}, { name: 'list_workers', task: { ttl: 1000 } })],
    ];
    for (const [why, body, accept] of others)
      assert.equal(directToolCall(requestOf(body, accept), toolset), null, why);
  });

  for (const operation of OPERATIONS) {
    it(`${operation.name}: the answer is the SDK's, its data serialised once`, () => {
      const data = examples[operation.name].response.data;
      const trust = { untrustedThirdPartyText: true, personalData: false };
      const parts = toolCallResponse(42, { ok: true, operation, data, requestId: 'r-1', trust });
      const text = Buffer.concat(parts).toString();
      const response = JSONRPCResultResponseSchema.parse(JSON.parse(text));
      assert.deepEqual(Object.keys(JSON.parse(text)), ['result', 'jsonrpc', 'id']);
      assert.equal(response.id, 42);
      const result = CallToolResultSchema.parse(response.result);
      // What callTool gives the SDK for the same outcome.
      assert.deepEqual(result, {
        content: [{ type: 'text', text: JSON.stringify({ data, request_id: 'r-1' }) }],
        structuredContent: data,
        _meta: { 'vms-read/trust': trust },
      });
    });
  }

  it('an error outcome is text with isError, as callTool gives it', () => {
    const body = { error: { code: 'forbidden', message: 'no' }, request_id: 'r-2' };
    const text = Buffer.concat(toolCallResponse('x', { ok: false, body })).toString();
    assert.deepEqual(JSON.parse(text), {
      result: { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true },
      jsonrpc: '2.0',
      id: 'x',
    });
  });
});
