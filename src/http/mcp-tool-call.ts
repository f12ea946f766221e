import { isJSONRPCRequest } from '@modelcontextprotocol/server';
import { CallToolRequestSchema } from '@modelcontextprotocol/core';
import type { FastifyRequest } from 'fastify';
import { resolveTool, type ToolOutcome, type Toolset } from '../mcp/tools.js';
import { resultMeta, type ResultTrust } from '../mcp/trust-marks.js';
import { serializeEnvelope } from './envelope-serializer.js';

/**
 * MCP at REST's pace (issue 23): a single `tools/call` over streamable HTTP is answered here,
 * without a server and transport of the SDK per request and its web-standard detour (a Request
 * and Response of undici, web streams, the result parsed again against its schema and serialised
 * twice). Only a call the SDK would take as it is comes this way: one JSON-RPC request (the SDK's
 * own schema, strict), of `tools/call` (the SDK's schema of its params, no task), to a known tool
 * with object arguments, from a client that accepts both JSON and event streams. Anything else
 * (initialize, tools/list, ping, notifications, malformed calls, unknown tools) goes through the
 * SDK as before, which answers it, and its errors, its own way.
 */
export function directToolCall(
  request: FastifyRequest,
  toolset: Toolset,
): { id: string | number; params: unknown } | null {
  const accept = request.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  const body = request.body;
  if (!isJSONRPCRequest(body) || body.method !== 'tools/call') return null;
  const call = CallToolRequestSchema.safeParse(body);
  if (!call.success || call.data.params.task !== undefined) return null;
  if ('refused' in resolveTool(toolset, body.params)) return null;
  return { id: body.id, params: body.params };
}

const TEXT_HEAD = Buffer.from('{"result":{"content":[{"type":"text","text":"');
const STRUCTURED = Buffer.from('"}],"structuredContent":');

/** A result's `_meta` as bytes: four possible values, each written once. */
const META_BYTES = new Map<string, Buffer>();
function metaBytes(trust: ResultTrust): Buffer {
  const key = `${trust.untrustedThirdPartyText}/${trust.personalData}`;
  let bytes = META_BYTES.get(key);
  if (!bytes) {
    bytes = Buffer.from(`,"_meta":${JSON.stringify(resultMeta(trust))}`);
    META_BYTES.set(key, bytes);
  }
  return bytes;
}

/**
 * The JSON-RPC response to a direct call, as the SDK would write it (`{result, jsonrpc, id}`),
 * with the answer serialised once: the envelope serializer writes the text REST
 * sends (`{"data":…,"request_id":…}`), here escaped as a JSON string, and `structuredContent` is
 * the data's text; for a repeat from the cache, both are the bytes kept from the first time; then
 * `_meta`, the trust marks callTool gives. In parts, written one after the other: an answer of
 * 100 kB is not copied into one buffer.
 */
export function toolCallResponse(id: string | number, outcome: ToolOutcome): Buffer[] {
  const end = Buffer.from(`},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`);
  if (!outcome.ok) {
    const result = {
      content: [{ type: 'text', text: JSON.stringify(outcome.body) }],
      isError: true,
    };
    return [Buffer.from(`{"result":${JSON.stringify(result).slice(0, -1)}`), end];
  }
  const { data, requestId, trust } = outcome;
  return [
    TEXT_HEAD,
    ...serializeEnvelope.escaped(data, requestId),
    STRUCTURED,
    serializeEnvelope.data(data),
    metaBytes(trust),
    end,
  ];
}
