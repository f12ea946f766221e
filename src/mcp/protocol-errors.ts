import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';

/** JSON-RPC error codes the service answers with, and the one text each carries. */
export const JSON_RPC = {
  parseError: { code: -32700, message: 'Parse error: the request body is not a JSON-RPC message.' },
  batch: {
    code: -32600,
    message:
      'Invalid Request: JSON-RPC batches are not supported (removed from MCP in 2025-06-18); send one message per request.',
  },
  invalidRequest: { code: -32600, message: 'Invalid Request.' },
  methodNotFound: { code: -32601, message: 'Method not found.' },
  invalidParams: { code: -32602, message: 'Invalid params.' },
  toolCallParams: {
    code: -32602,
    message: 'Invalid params: tools/call takes {name: string, arguments?: object}.',
  },
  unknownTool: { code: -32602, message: 'Unknown tool: call tools/list for the tool names.' },
  // The 2026-07-28 revision's code for a resource that is not there, which the SDK also sends on
  // earlier ones (it maps -32002 to it); without the `{uri}` data, which would echo input.
  notFound: { code: -32602, message: 'Resource not found: call resources/list for the resources.' },
  internal: { code: -32603, message: 'Internal error.' },
  protocolVersion: {
    code: -32000,
    message:
      'Bad Request: unsupported MCP-Protocol-Version header; see initialize for the version.',
  },
  mediaType: {
    code: -32000,
    message: 'Unsupported Media Type: Content-Type must be application/json.',
  },
  notAcceptable: {
    code: -32000,
    message: 'Not Acceptable: the Accept header must admit application/json.',
  },
} as const;

type Known = (typeof JSON_RPC)[keyof typeof JSON_RPC];
const KNOWN_MESSAGES = new Set<string>(Object.values(JSON_RPC).map((e) => e.message));
const BY_CODE = new Map<number, string>(
  [
    JSON_RPC.parseError,
    JSON_RPC.invalidRequest,
    JSON_RPC.methodNotFound,
    JSON_RPC.invalidParams,
    JSON_RPC.internal,
  ].map((e) => [e.code, e.message]),
);

/** An error a request handler throws to answer with a JSON-RPC error of the table above. */
export class ProtocolError extends Error {
  readonly code: number;
  constructor(known: Known) {
    super(known.message);
    this.code = known.code;
  }
}

/**
 * A JSON-RPC error response for a request that never reached the protocol layer: `id` null
 * unless the message carried a usable one.
 */
export function jsonRpcErrorBody(known: Known, id: string | number | null = null) {
  return { jsonrpc: '2.0' as const, error: { code: known.code, message: known.message }, id };
}

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/**
 * Whether a parsed body is one JSON-RPC message as MCP has them: `jsonrpc` "2.0" and a request
 * (`method` a string, an integer or string `id`), a notification (no `id`) or a response (`id` and
 * `result` or `error`), `params` an object when present. Null when it is; else the `id` to answer
 * the -32600 with (the message's when usable, else null), on every path and era alike.
 */
export function invalidMessage(body: unknown): { id: string | number | null } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { id: null };
  const message = body as Record<string, unknown>;
  const id = isId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0') return { id };
  if ('method' in message) {
    const params = message.params;
    const paramsOk =
      params === undefined ||
      (typeof params === 'object' && params !== null && !Array.isArray(params));
    const idOk = !('id' in message) || isId(message.id);
    return typeof message.method === 'string' && paramsOk && idOk ? null : { id };
  }
  return isId(message.id) && ('result' in message || 'error' in message) ? null : { id };
}

/**
 * Messages never echo input (DESIGN §4.1): the SDK's own errors (a schema failure lists the
 * offending members, a rebinding refusal names the Host) are rewritten on their way out to the
 * fixed text of their code, with no `data`. Errors of the table above pass unchanged.
 */
export function withoutEcho(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message)) return message;
  const { code } = message.error;
  if (KNOWN_MESSAGES.has(message.error.message) && message.error.data === undefined) return message;
  return {
    ...message,
    error: { code, message: BY_CODE.get(code) ?? 'Request failed.' },
  };
}

/** Applies `withoutEcho` to everything a transport sends: the one rule for every MCP transport. */
export function guardTransport<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withoutEcho(message), options);
  return transport;
}
