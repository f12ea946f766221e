import {
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCMessage,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { ErrorLogger } from '../errors.js';
import type { Executor } from '../operations/executor.js';
import { withoutEcho } from '../mcp/protocol-errors.js';
import { createMcpServer } from '../mcp/server.js';
import type { Caller, Toolset } from '../mcp/tools.js';

/**
 * The stateless revisions of MCP (2026-07-28 on): every request carries its own envelope (the
 * protocol version and the client's capabilities in `params._meta`), with no `initialize`.
 * The SDK's list of them is not exported; a test connects a client pinned to each.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** Who calls, and where a failed tool call is logged: what the per-request server needs. */
interface ModernCall {
  principal: Principal;
  caller: Caller;
  log: ErrorLogger;
}

/** An answer of the modern path, to send as it is. */
export interface ModernAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers a Request built from an already-read Node request must not carry. */
const NOT_COPIED = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

/** The request as a web-standard Request, its body already parsed (passed beside it). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_COPIED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://vms-read.invalid${request.url}`, { method: 'POST', headers });
}

/** A JSON-RPC answer with the SDK's own error texts replaced by fixed ones (withoutEcho). */
function fixedTexts(body: string): string {
  try {
    return JSON.stringify(withoutEcho(JSON.parse(body) as JSONRPCMessage));
  } catch {
    return body;
  }
}

/**
 * MCP's stateless revision on /mcp, beside the 2025-era serving of mcp-route.ts: the SDK's
 * `createMcpHandler` (modern requests only; 2025-era ones never reach it) answers a request
 * that claims a modern revision, with a server built per request by the same factory as the
 * 2025 path, for the principal the route authenticated. Answers are JSON (the tools send no
 * progress, so nothing streams), their error texts fixed as every MCP answer's are.
 */
export function modernMcp(executor: Executor, toolset: Toolset) {
  const handler = createMcpHandler(
    ({ authInfo }: McpRequestContext) => {
      const call = authInfo?.extra?.call as ModernCall;
      return createMcpServer(executor, toolset, call.caller, call.log);
    },
    // The default response mode: an answer is one JSON body unless a handler sends something
    // before its result, which no tool does ('json' would say so in a warning at every start).
    { legacy: 'reject' },
  );
  /**
   * Whether a request speaks a modern revision: an envelope in its `_meta`, or a modern
   * `MCP-Protocol-Version`. Anything else is 2025-era without asking the SDK (the hot path).
   */
  const mayClaim = (request: FastifyRequest): boolean => {
    const body = request.body as { params?: { _meta?: unknown } } | null;
    const meta = typeof body === 'object' && body !== null ? body.params?._meta : undefined;
    const header = request.headers['mcp-protocol-version'];
    const modernHeader = typeof header === 'string' && MODERN_PROTOCOL_VERSIONS.includes(header);
    return modernHeader || (typeof meta === 'object' && meta !== null);
  };
  return {
    /** The SDK's answer to a request in a modern revision, for `call`; null for a 2025-era one. */
    async answer(request: FastifyRequest, call: ModernCall): Promise<ModernAnswer | null> {
      if (!mayClaim(request)) return null;
      const web = webRequest(request);
      if (await isLegacyRequest(web, request.body)) return null;
      const { principal } = call;
      const response = await handler.fetch(web, {
        parsedBody: request.body,
        authInfo: {
          token: principal.tokenId,
          clientId: principal.tokenId,
          scopes: [...principal.scopes],
          extra: { call },
        },
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'transfer-encoding') headers[name] = value;
      });
      const text = await response.text();
      const json = headers['content-type']?.includes('application/json') ?? false;
      return { status: response.status, headers, body: json ? fixedTexts(text) : text };
    },
    close: () => handler.close(),
  };
}
