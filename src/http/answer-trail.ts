import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refusalCodeOf, type Seen } from '../operations/answered.js';
import type { Executor } from '../operations/executor.js';
import type { AnyOperation } from '../operations/operation.js';
import type { Toolset } from '../mcp/tools.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation a route answers: each of its answers is one event of the access trail. */
    operation?: AnyOperation;
    /** `/mcp`: its refusals before any tool ran are events of the access trail. */
    mcpTrail?: Toolset;
  }
  interface FastifyRequest {
    /** What the executor saw of the request (the input accepted, the data answered). */
    seen?: Seen;
    /** The error code its answer carried (the error handler sets it). */
    answerCode?: string;
    /** A tool call ran for this /mcp request: runTool made its event. */
    toolCalled?: boolean;
  }
}

/**
 * A request's User-Agent as its client wrote it: Node reads header bytes as latin1, and clients
 * send UTF-8 (a byte sequence that is not UTF-8 comes out as U+FFFD).
 */
export function userAgentOf(request: FastifyRequest): string | null {
  const header = request.headers['user-agent'];
  if (header === undefined) return null;
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(header) ? header : Buffer.from(header, 'latin1').toString('utf8');
}

/** The tool a refused `/mcp` request asked for, when it was a tools/call of a known tool. */
function toolOf(request: FastifyRequest, toolset: Toolset): AnyOperation | null {
  const body = request.body as { method?: unknown; params?: { name?: unknown } } | null;
  if (typeof body !== 'object' || body === null || body.method !== 'tools/call') return null;
  const name = body.params?.name;
  return typeof name === 'string' ? (toolset.byName.get(name) ?? null) : null;
}

/**
 * Hands every answered request of the API's operations and every refused `/mcp` request to the
 * executor for the access trail (DESIGN §4.17), once the answer is sent; tool calls hand
 * themselves over (runTool). Nothing when the trail is off.
 */
export function installAnswerTrail(app: FastifyInstance, executor: Executor): void {
  if (!executor.deps.answers) return;
  app.addHook('onResponse', (request, reply, done) => {
    const { mcpTrail } = request.routeOptions.config;
    // A route that answers for several operations (the OData feed) names the one it answered.
    const operation = request.answeredOperation ?? request.routeOptions.config.operation;
    const status = reply.statusCode;
    const mcpRefusal = mcpTrail !== undefined && !request.toolCalled && status >= 400;
    if (operation || mcpRefusal) {
      const seen = request.seen ?? {};
      executor.answered({
        requestId: request.id,
        at: Date.now(),
        transport: operation ? 'rest' : 'mcp',
        address: request.clientAddress,
        userAgent: userAgentOf(request),
        principal: request.principal ?? null,
        operation: operation ?? toolOf(request, mcpTrail as Toolset),
        seen,
        status,
        code: status === 200 ? refusalCodeOf(seen.data) : (request.answerCode ?? null),
      });
    }
    done();
  });
}
