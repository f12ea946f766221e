import fc from 'fast-check';
import { REPORT_VIEW_URI } from '../../src/mcp/report-view.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import type { FuzzContext } from './fuzz-context.js';
import { headersOf, usually, type FuzzRequest } from './fuzz-request.js';
import { hostileText, markedText, marker } from './hostile-text.js';
import { hostileJson, notJson, type Json } from './json-mutations.js';
import { contentType, jsonInput } from './rest-requests.js';

/** Random and mutated JSON-RPC over streamable HTTP at POST /mcp (DESIGN §4.10). */

export const MCP_ACCEPT = 'application/json, text/event-stream';
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

const id: fc.Arbitrary<Json> = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), marker);

/** tools/call of a tool of the registry with mutated arguments, or of a tool that is not. */
export function toolCall(ctx: FuzzContext): fc.Arbitrary<Json> {
  const known = OPERATIONS.map((op) =>
    fc.record(
      { name: fc.constant(op.name), arguments: jsonInput(op, ctx) as fc.Arbitrary<Json> },
      { requiredKeys: ['name'] },
    ),
  );
  const unknown = fc.record({
    name: fc.oneof(
      markedText,
      hostileText,
      fc.constantFrom(...OPERATIONS.map((op) => op.name.toUpperCase())),
    ),
    arguments: hostileJson,
  });
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...known) }, { weight: 1, arbitrary: unknown });
}

const initializeParams: fc.Arbitrary<Json> = fc.record({
  protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05'), markedText),
  capabilities: fc.oneof(fc.constant({}), hostileJson),
  clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), hostileJson),
});

/** A well-formed message of each kind a client sends. */
function wellFormed(ctx: FuzzContext): fc.Arbitrary<Json> {
  const request = (method: string, params?: fc.Arbitrary<Json>) =>
    fc.record(
      {
        jsonrpc: fc.constant('2.0'),
        id,
        method: fc.constant(method),
        ...(params ? { params } : {}),
      },
      { requiredKeys: ['jsonrpc', 'id', 'method'] },
    );
  return fc.oneof(
    request('initialize', initializeParams),
    request('tools/list'),
    request('ping'),
    request('resources/list'),
    // The report view's URI, or any other (hostile) one: the view, or a fixed -32602.
    request(
      'resources/read',
      fc.record({ uri: fc.oneof(fc.constant(REPORT_VIEW_URI), markedText) }),
    ),
    { weight: 4, arbitrary: request('tools/call', toolCall(ctx)) },
    fc.constant({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
}

/** A message with any member wrong: version, id, method or params. */
const malformedMessage: fc.Arbitrary<Json> = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constantFrom('1.0', 2, null, ''), marker),
    id: fc.oneof(id, fc.constantFrom<Json>(null, {}, [], 1.5, true)),
    method: fc.oneof(
      fc.constantFrom(
        'initialize',
        'tools/list',
        'ping',
        'tools/call',
        'resources/list',
        'resources/read',
        'prompts/get',
      ),
      markedText,
      fc.constant(5),
    ),
    params: hostileJson,
  },
  { requiredKeys: [] },
);

export function mcpMessage(ctx: FuzzContext): fc.Arbitrary<Json> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 4, arbitrary: wellFormed(ctx) },
    { weight: 1, arbitrary: malformedMessage },
  );
}

/** A body that is a batch (a JSON array) or not JSON: HTTP 400 with -32600 or -32700. */
export function protocolError(
  ctx: FuzzContext,
): fc.Arbitrary<{ kind: 'batch' | 'not JSON'; payload: string }> {
  return fc.oneof(
    fc
      .array(mcpMessage(ctx), { maxLength: 3 })
      .map((batch) => ({ kind: 'batch' as const, payload: JSON.stringify(batch) })),
    notJson(JSON.stringify(TOOLS_LIST)).map((payload) => ({ kind: 'not JSON' as const, payload })),
  );
}

function payload(ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 8, arbitrary: mcpMessage(ctx).map((m) => JSON.stringify(m)) },
    { weight: 2, arbitrary: protocolError(ctx).map((p) => p.payload) },
    { weight: 1, arbitrary: hostileJson.map((j) => JSON.stringify(j)) },
  );
}

/** A POST /mcp as a well-behaved client sends it, with the token(s) the caller chooses. */
export function mcpPost(payload: string, authorization: string | string[]): FuzzRequest {
  return {
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, authorization },
    payload,
  };
}

/** tools/call of any tool, with any role's valid token and well-formed JSON-RPC around it. */
export function toolCallRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(toolCall(ctx), fc.constantFrom(...ctx.bearers))
    .map(([params, bearer]) =>
      mcpPost(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }), bearer),
    );
}

/** Any request to /mcp: mostly POST with a JSON-RPC message, with any header wrong now and then. */
export function mcpRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: usually('POST', fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS')),
      payload: payload(ctx),
      contentType,
      accept: usually<string | undefined>(
        MCP_ACCEPT,
        fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html', undefined),
      ),
      authorization: ctx.authorization,
      origin: usually<string | undefined>(
        undefined,
        fc.oneof(
          fc.constantFrom('http://localhost', 'http://localhost:80', 'http://evil.example', 'null'),
          marker.map((m) => `http://${m}.example`),
        ),
      ),
      protocolVersion: usually<string | undefined>(
        undefined,
        fc.oneof(fc.constantFrom('2025-06-18', '1999-01-01'), marker),
      ),
    })
    .map(({ method, payload, contentType, accept, authorization, origin, protocolVersion }) => ({
      method,
      url: '/mcp',
      headers: headersOf({
        'content-type': contentType,
        accept,
        authorization,
        origin,
        'mcp-protocol-version': protocolVersion,
      }),
      payload,
    }));
}
