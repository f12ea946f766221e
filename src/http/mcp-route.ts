import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canStepUp, type Principal } from '../auth/principal.js';
import { ApiError, errorBody } from '../errors.js';
import { insufficientScope } from '../operations/executor.js';
import type { ErrorAnswer } from './error-handling.js';
import { ALL_SCOPES, MCP_METADATA_PATH, MCP_PATH } from './resource-metadata.js';
import { ForbiddenMemberError } from './json-body.js';
import { authenticateAndAdmit } from './routes.js';
import type { ServerOrigin } from './server-origin.js';
import type { RequestCounting } from '../metrics/service-metrics.js';
import type { WatchAnswer } from './slow-readers.js';
import type { Executor } from '../operations/executor.js';
import {
  guardTransport,
  invalidMessage,
  JSON_RPC,
  jsonRpcErrorBody,
} from '../mcp/protocol-errors.js';
import { clientInfoOr, runTool, type Toolset } from '../mcp/tools.js';
import { sendParts, writeRaw } from './raw-answer.js';
import { userAgentOf } from './answer-trail.js';

type McpEngine = typeof import('./mcp-engine.js');
let engine: Promise<McpEngine> | undefined;

/** The SDK-built part of /mcp (mcp-engine.ts), loaded once, by whichever asks first. */
export function loadMcpEngine(): Promise<McpEngine> {
  return (engine ??= import('./mcp-engine.js'));
}

/** Whether this process has loaded (or begun to load) the SDK-built part of /mcp. */
export const mcpEngineLoaded = (): boolean => engine !== undefined;

/**
 * DNS rebinding and cross-site calls (DESIGN §4.10): a browser's Origin must be this server's own
 * or listed, and on a loopback address the Host must be a loopback name. Checked here rather
 * than by the SDK's `enableDnsRebindingProtection`, whose 403 quotes the refused header back.
 */
function checkOriginAndHost(request: FastifyRequest, origin: ServerOrigin): void {
  const browserOrigin = request.headers.origin;
  if (!origin.allowsHost(request.headers.host)) throw new ApiError('origin_refused');
  if (browserOrigin !== undefined && !origin.allowsOrigin(browserOrigin))
    throw new ApiError('origin_refused');
}

/**
 * The check the SDK makes of an MCP-Protocol-Version header, made first (on every request, which
 * is stricter than the SDK's after-initialize rule): the SDK's own 400 quotes the header back.
 */
function protocolVersionSupported(request: FastifyRequest, mcp: McpEngine): boolean {
  const version = request.headers['mcp-protocol-version'];
  return (
    version === undefined ||
    (typeof version === 'string' &&
      (mcp.SUPPORTED_PROTOCOL_VERSIONS.includes(version) ||
        mcp.MODERN_PROTOCOL_VERSIONS.includes(version)))
  );
}

/** Whether a Content-Type is JSON's (any parameters aside): a text/plain body is no message. */
function isJsonType(type: string | undefined): boolean {
  return type?.split(';')[0].trim().toLowerCase() === 'application/json';
}

/**
 * Whether an Accept header admits a JSON answer (every answer on /mcp is JSON): absent, or
 * naming application/json, application/* or *\/* with a weight above 0.
 */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return accept.split(',').some((part) => {
    const [range, ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (
      ['application/json', 'application/*', '*/*'].includes(range.trim()) &&
      (q === undefined || Number(q.slice(2)) > 0)
    );
  });
}

/**
 * Step-up on /mcp (DESIGN §4.12, MCP 2025-11-25 "Scope challenge"): a `tools/call` by an OAuth
 * token that lacks the tool's scope is refused as an HTTP 403 of the request, whose challenge
 * names the scopes to ask for, rather than answered with a tool result; the client can then ask
 * the authorization server for them and call again. An access key gets the tool result as before,
 * and so does a grant asking for a scope its subject can never hold.
 */
function checkToolScope(request: FastifyRequest, principal: Principal, toolset: Toolset): void {
  if (principal.grant === null) return;
  const body = request.body as { method?: unknown; params?: { name?: unknown } } | null;
  if (typeof body !== 'object' || body === null || body.method !== 'tools/call') return;
  const name = body.params?.name;
  const operation = typeof name === 'string' ? toolset.byName.get(name) : undefined;
  // A scope the grant's subject can never hold is the tool result's plain refusal, as for an
  // access key: a challenge would send the host to ask again, for ever (DESIGN §4.16).
  if (
    operation?.scope &&
    !principal.scopes.has(operation.scope) &&
    canStepUp(principal, operation.scope)
  )
    throw insufficientScope(principal, operation.scope);
}

/** Body errors on /mcp are JSON-RPC errors; every other error has the REST shape. */
function mcpErrorAnswer(rest: ErrorAnswer): ErrorAnswer {
  return (error: FastifyError, request, reply) => {
    if (
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    )
      return reply.code(400).send(jsonRpcErrorBody(JSON_RPC.parseError));
    if (error instanceof ForbiddenMemberError)
      return reply
        .code(400)
        .send(jsonRpcErrorBody(error.isArray ? JSON_RPC.batch : JSON_RPC.invalidRequest));
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return reply.code(415).send(jsonRpcErrorBody(JSON_RPC.mediaType));
    return rest(error, request, reply);
  };
}

/**
 * Streamable HTTP at POST /mcp, stateless: each request is authenticated and counted against the
 * quota once (initialize, tools/list and ping included); a plain tool call is answered directly
 * (mcp-tool-call.ts), anything else gets its own server and transport of the SDK; tool calls go
 * through the executor like HTTP does.
 */
export function mountMcpHttp(
  app: FastifyInstance,
  executor: Executor,
  toolset: Toolset,
  http: { origin: ServerOrigin; errorAnswer: ErrorAnswer; watchAnswer: WatchAnswer },
): void {
  const { origin, errorAnswer, watchAnswer } = http;
  // Tool calls are counted one by one (callTool); an exchange refused before any JSON-RPC message
  // was handled (401, 429, a bad origin, a batch...) is counted here, as operation `none`.
  const mcpMeters = executor.deps.metrics?.requestMeters(undefined, 'mcp');
  const meters: RequestCounting | undefined = mcpMeters && {
    record: (status, seconds) => {
      if (status >= 400) mcpMeters.record(status, seconds);
    },
  };
  // The stateless revision (2026-07-28) is the SDK's createMcpHandler; 2025-era requests are
  // answered below, as before.
  let modern: ReturnType<McpEngine['modernMcp']> | undefined;
  app.addHook('onClose', async () => modern?.close());

  // Answered before any body is read: a DELETE with a JSON content type and no body is a 405 too.
  const notAllowed = async (request: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send(errorBody('method_not_allowed', request.id));
  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: MCP_PATH,
    config: { meters },
    onRequest: notAllowed,
    handler: notAllowed,
  });

  app.post(MCP_PATH, {
    config: {
      resourceMetadataPath: MCP_METADATA_PATH,
      challengeScope: ALL_SCOPES,
      meters,
      mcpTrail: toolset,
    },
    errorHandler: mcpErrorAnswer(errorAnswer),
    onRequest: async (request) => {
      checkOriginAndHost(request, origin);
      await authenticateAndAdmit(executor, request);
    },
    handler: async (request, reply) => {
      const mcp = await loadMcpEngine();
      modern ??= mcp.modernMcp(executor, toolset);
      if (Array.isArray(request.body))
        return reply.code(400).send(jsonRpcErrorBody(JSON_RPC.batch));
      if (!protocolVersionSupported(request, mcp))
        return reply.code(400).send(jsonRpcErrorBody(JSON_RPC.protocolVersion));
      // One rule for every era, before either path (docs/mcp.md, "Malformed requests").
      if (!isJsonType(request.headers['content-type']))
        return reply.code(415).send(jsonRpcErrorBody(JSON_RPC.mediaType));
      const invalid = invalidMessage(request.body);
      if (invalid)
        return reply.code(400).send(jsonRpcErrorBody(JSON_RPC.invalidRequest, invalid.id));
      if (!acceptsJson(request.headers.accept))
        return reply.code(406).send(jsonRpcErrorBody(JSON_RPC.notAcceptable));
      const principal = request.principal as Principal;
      checkToolScope(request, principal, toolset);
      const { receivedAt } = request;
      const origin = {
        address: request.clientAddress,
        userAgent: clientInfoOr(
          (request.body as { params?: unknown }).params,
          userAgentOf(request),
        ),
      };
      const caller = async () => {
        request.toolCalled = true;
        return { principal, receivedAt, origin };
      };
      const modernAnswer = await modern.answer(request, { principal, caller, log: request.log });
      if (modernAnswer)
        return reply
          .code(modernAnswer.status)
          .headers(modernAnswer.headers)
          .send(modernAnswer.body);
      const direct = mcp.directToolCall(request, toolset);
      if (direct) {
        const outcome = await runTool(executor, toolset, caller, direct.params, request.log);
        sendParts(
          request,
          reply,
          watchAnswer,
          'application/json',
          mcp.toolCallResponse(direct.id, outcome),
        );
        return;
      }
      const server = mcp.createMcpServer(executor, toolset, caller, request.log);
      const transport = guardTransport(
        new mcp.NodeStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        }),
      );
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      // Answers are JSON (enableJsonResponse): the Accept rule was applied above, and the SDK's
      // own (both JSON and an event stream) would refuse what the other paths take.
      request.raw.headers.accept = 'application/json, text/event-stream';
      writeRaw(request, reply, watchAnswer);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
}
