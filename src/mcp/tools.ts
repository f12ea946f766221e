import { randomUUID } from 'node:crypto';
import {
  McpError,
  ErrorCode,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { errorBody, errorCodeOf } from '../errors.js';
import type { Executor } from '../operations/executor.js';
import type { AnyOperation } from '../operations/operation.js';

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

/** The tool list, built once from the registry: name, description, input and output schemas, hints. */
export function toolsetOf(operations: readonly AnyOperation[]): Toolset {
  const tools = operations.map((op) => ({
    name: op.name,
    description: op.description,
    inputSchema: plain(op.input) as Tool['inputSchema'],
    outputSchema: objectRoot(plain(op.output)),
    annotations: ANNOTATIONS,
  }));
  return { tools, byName: new Map(operations.map((op) => [op.name, op])) };
}

/**
 * Runs a tool through the same executor as HTTP (auth, quota, strictness, scope, visibility).
 * A refusal is a normal result; what HTTP answers with 401/403/404/429/5xx becomes `isError`
 * with the error body as text. An unknown tool is a protocol error, not a result.
 */
export async function callTool(
  executor: Executor,
  { byName }: Toolset,
  authorization: string | undefined,
  name: string,
  args: unknown,
): Promise<CallToolResult> {
  const operation = byName.get(name);
  if (!operation) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const requestId = randomUUID();
  try {
    const data = await executor.call(operation, authorization, args ?? {});
    return {
      content: [{ type: 'text', text: JSON.stringify({ data, request_id: requestId }) }],
      structuredContent: data as Record<string, unknown>,
    };
  } catch (error) {
    const code = errorCodeOf(error);
    return {
      content: [{ type: 'text', text: JSON.stringify(errorBody(code, requestId)) }],
      isError: true,
    };
  }
}
