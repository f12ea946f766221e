import { randomUUID } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { Principal } from '../auth/principal.js';
import { monotonicNow } from '../deadline.js';
import { errorOutcome, logErrorOutcome, type ErrorLogger } from '../errors.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Executor } from '../operations/executor.js';
import { refusalCodeOf, type Seen } from '../operations/answered.js';
import { dataSchema, type AnyOperation } from '../operations/operation.js';
import { JSON_RPC, ProtocolError } from './protocol-errors.js';
import { withView } from './report-view.js';
import {
  resultMeta,
  toolTrust,
  TRUST_META,
  type ResultTrust,
  type ToolTrust,
} from './trust-marks.js';

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
  /** Each tool's trust marks, by name: where its results can hold them, and which one does. */
  trust: ReadonlyMap<string, ToolTrust>;
}

/**
 * The tool list, built once from the registry: name, title, description, input and output
 * schemas, hints, and in `_meta` the trust marks read off the output schema (trust-marks.ts).
 */
export function toolsetOf(operations: readonly AnyOperation[]): Toolset {
  const tools = operations.map((op) =>
    withView({
      name: op.name,
      title: op.title,
      description: op.description,
      inputSchema: plain(op.input) as Tool['inputSchema'],
      outputSchema: objectRoot(plain(dataSchema(op))),
      annotations: ANNOTATIONS,
    }),
  );
  const trust = new Map(tools.map((tool) => [tool.name, toolTrust(tool.outputSchema)]));
  for (const tool of tools)
    tool._meta = { ...tool._meta, [TRUST_META]: trust.get(tool.name)?.templates };
  return { tools, byName: new Map(operations.map((op) => [op.name, op])), trust };
}

/**
 * Who is calling and when the request arrived: each transport knows this its own way (HTTP once
 * per POST, already authenticated and counted; stdio per call, from its token).
 */
export type Caller = () => Promise<{
  principal: Principal;
  receivedAt: number;
  /** Where the call came from, for the access trail: none over stdio. */
  origin?: CallOrigin;
}>;

/** A call's client: its address (DESIGN §4.16) and its HTTP User-Agent. */
export interface CallOrigin {
  address: string | null;
  userAgent: string | null;
}

/** The MCP 2026-07-28 `_meta` key under which a request names its client. */
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';

/**
 * The client as a request's params name it (`name/version` of 2026-07-28's `clientInfo` in
 * `_meta`), else `fallback`. The transport reads it from the request as sent: the SDK hands a
 * modern request's handler its params without the envelope.
 */
export function clientInfoOr(params: unknown, fallback: string | null): string | null {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : null;
  const info = meta && isObject(meta[CLIENT_INFO]) ? meta[CLIENT_INFO] : null;
  if (!info || typeof info.name !== 'string') return fallback;
  return typeof info.version === 'string' ? `${info.name}/${info.version}` : info.name;
}

/** A caller that authenticates one token, and counts it against its quota, on every call (stdio). */
export function callerWithToken(executor: Executor, token: string): Caller {
  return async () => {
    const receivedAt = monotonicNow();
    const principal = await executor.authenticate(`Bearer ${token}`, receivedAt);
    await executor.admit(principal);
    return { principal, receivedAt };
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Counts one tool call, when metrics are on: `started` is its monotonicNow() at arrival. */
function countCall(
  metrics: ServiceMetrics | undefined,
  started: number,
  tool: string | undefined,
  status: number,
): void {
  metrics?.requestMeters(tool, 'mcp').record(status, (monotonicNow() - started) / 1000);
}

/** A malformed tool call or an unknown tool: counted as `none` 404, answered as a protocol error. */
function refusedCall(
  metrics: ServiceMetrics | undefined,
  started: number,
  code: (typeof JSON_RPC)['toolCallParams' | 'unknownTool'],
): ProtocolError {
  countCall(metrics, started, undefined, 404);
  return new ProtocolError(code);
}

/**
 * What a tool call came to: the operation's data and what it holds by the tool's trust marks, or
 * the error body HTTP would have answered.
 */
export type ToolOutcome =
  | { ok: true; operation: AnyOperation; data: unknown; requestId: string; trust: ResultTrust }
  | { ok: false; body: unknown };

/** The tool `params` call and its arguments, or the protocol error malformed params or an unknown tool get. */
export function resolveTool(
  { byName }: Toolset,
  params: unknown,
):
  | { operation: AnyOperation; args: Record<string, unknown> }
  | { refused: (typeof JSON_RPC)['toolCallParams' | 'unknownTool'] } {
  if (!isObject(params) || typeof params.name !== 'string')
    return { refused: JSON_RPC.toolCallParams };
  const args = params.arguments ?? {};
  if (!isObject(args)) return { refused: JSON_RPC.toolCallParams };
  const operation = byName.get(params.name);
  return operation ? { operation, args } : { refused: JSON_RPC.unknownTool };
}

/**
 * Runs a tool through the same executor as HTTP (strictness, scope, visibility). A refusal is a
 * normal result; what HTTP answers with 401/403/404/429/5xx becomes an error outcome with the
 * error body, logged as HTTP logs it (500 error, other 5xx warn) with the tool's name and the
 * body's request_id. Malformed params and an unknown tool are protocol errors, not results.
 * With metrics on, each call is counted (transport mcp) under its tool's name with the status
 * HTTP would have answered (200 for a result, a refusal included); a protocol error as `none` 404,
 * as REST counts an unknown path.
 */
export async function runTool(
  executor: Executor,
  toolset: Toolset,
  caller: Caller,
  params: unknown,
  logger?: ErrorLogger,
): Promise<ToolOutcome> {
  const { metrics } = executor.deps;
  let started = metrics ? monotonicNow() : 0;
  const tool = resolveTool(toolset, params);
  if ('refused' in tool) throw refusedCall(metrics, started, tool.refused);
  const { operation, args } = tool;
  const requestId = randomUUID();
  const seen: Seen = {};
  let principal: Principal | null = null;
  let origin: CallOrigin | undefined;
  // Every tool call is one answered request of the access trail, refused ones included.
  const answered = (status: number, code: string | null) =>
    executor.answered({
      requestId,
      at: Date.now(),
      transport: 'mcp',
      address: origin?.address ?? null,
      userAgent: clientInfoOr(params, origin?.userAgent ?? null),
      principal,
      operation,
      seen,
      status,
      code,
    });
  try {
    const called = await caller();
    ({ principal, origin } = called);
    const { receivedAt } = called;
    // Over HTTP the request arrived before this call: its latency counts from there.
    if (metrics) started = Math.min(started, receivedAt);
    const data = await executor.run(operation, called.principal, args, {
      fromQueryString: false,
      receivedAt,
      seen,
    });
    countCall(metrics, started, operation.name, 200);
    answered(200, refusalCodeOf(data));
    const trust = (toolset.trust.get(operation.name) as ToolTrust).of(data);
    return { ok: true, operation, data, requestId, trust };
  } catch (error) {
    const outcome = errorOutcome(error, requestId);
    countCall(metrics, started, operation.name, outcome.status);
    answered(outcome.status, outcome.body.error.code);
    if (logger)
      logErrorOutcome(logger, outcome, error, {
        tool: operation.name,
        tool_request_id: requestId,
      });
    return { ok: false, body: outcome.body };
  }
}

/**
 * A tool call's result as MCP carries it: the answer as text (`{data, request_id}`, the bytes
 * HTTP sends) and as `structuredContent`, and in `_meta` what it holds by the trust marks; an
 * error as text with `isError` (no trust marks: an error's text is the service's own).
 */
export async function callTool(
  executor: Executor,
  toolset: Toolset,
  caller: Caller,
  params: unknown,
  logger?: ErrorLogger,
): Promise<CallToolResult> {
  const outcome = await runTool(executor, toolset, caller, params, logger);
  if (!outcome.ok)
    return { content: [{ type: 'text', text: JSON.stringify(outcome.body) }], isError: true };
  const { data, requestId, trust } = outcome;
  return {
    content: [{ type: 'text', text: JSON.stringify({ data, request_id: requestId }) }],
    structuredContent: data as Record<string, unknown>,
    _meta: resultMeta(trust),
  };
}
