import { randomUUID } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import { monotonicNow } from '../deadline.js';
import { errorOutcome, logErrorOutcome, type ErrorLogger } from '../errors.js';
import type { Executor } from '../operations/executor.js';
import { dataSchema, type AnyOperation } from '../operations/operation.js';
import { JSON_RPC, ProtocolError } from './protocol-errors.js';

const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** MCP wants an object at the root of outputSchema; a union of outcomes becomes `anyOf` under it. */
function objectRoot(schema: Record<string, unknown>): Tool['outputSchema'] {
  return (
    schema.type === 'object' ? schema : { type: 'object', ...schema }
  ) as Tool['outputSchema'];
}

/** Strips TypeBox's symbol keys by a JSON round trip: what goes on the wire is plain JSON Schema. */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

export interface Toolset {
  tools: Tool[];
  byName: ReadonlyMap<string, AnyOperation>;
}

/**
 * The tool list, built once from the registry: name, title, description, input and output
 * schemas, hints.
 */
export function toolsetOf(operations: readonly AnyOperation[]): Toolset {
  const tools = operations.map((op) => ({
    name: op.name,
    title: op.title,
    description: op.description,
    inputSchema: plain(op.input) as Tool['inputSchema'],
    outputSchema: objectRoot(plain(dataSchema(op))),
    annotations: ANNOTATIONS,
  }));
  return { tools, byName: new Map(operations.map((op) => [op.name, op])) };
}

/**
 * Who is calling and when the request arrived: each transport knows this its own way (HTTP once
 * per POST, already authenticated and counted; stdio per call, from its token).
 */
export type Caller = () => Promise<{ principal: Principal; receivedAt: number }>;

/** A caller that authenticates one token, and counts it against its quota, on every call (stdio). */
export function callerWithToken(executor: Executor, token: string): Caller {
  return async () => {
    const receivedAt = monotonicNow();
    const principal = await executor.authenticate(`Bearer ${token}`, receivedAt);
    executor.admit(principal);
    return { principal, receivedAt };
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Runs a tool through the same executor as HTTP (strictness, scope, visibility). A refusal is a
 * normal result; what HTTP answers with 401/403/404/429/5xx becomes `isError` with the error
 * body as text, and is logged as HTTP logs it (500 error, other 5xx warn) with the tool's name
 * and the body's request_id. Malformed params and an unknown tool are protocol errors, not results.
 */
export async function callTool(
  executor: Executor,
  { byName }: Toolset,
  caller: Caller,
  params: unknown,
  logger?: ErrorLogger,
): Promise<CallToolResult> {
  if (!isObject(params) || typeof params.name !== 'string')
    throw new ProtocolError(JSON_RPC.toolCallParams);
  const args = params.arguments ?? {};
  if (!isObject(args)) throw new ProtocolError(JSON_RPC.toolCallParams);
  const operation = byName.get(params.name);
  if (!operation) throw new ProtocolError(JSON_RPC.unknownTool);
  const requestId = randomUUID();
  try {
    const { principal, receivedAt } = await caller();
    const data = await executor.run(operation, principal, args, {
      fromQueryString: false,
      receivedAt,
    });
    return {
      content: [{ type: 'text', text: JSON.stringify({ data, request_id: requestId }) }],
      structuredContent: data as Record<string, unknown>,
    };
  } catch (error) {
    const outcome = errorOutcome(error, requestId);
    if (logger)
      logErrorOutcome(logger, outcome, error, {
        tool: operation.name,
        tool_request_id: requestId,
      });
    return { content: [{ type: 'text', text: JSON.stringify(outcome.body) }], isError: true };
  }
}
