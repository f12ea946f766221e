import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Executor } from '../operations/executor.js';
import type { AnyOperation } from '../operations/operation.js';
import type { Store } from '../store/store.js';
import { errorBody } from '../errors.js';
import { installErrorHandling } from './error-handling.js';
import { mountOperation } from './routes.js';
import { mountMcpHttp, type McpHttpOptions } from '../mcp/http-transport.js';
import { toolsetOf } from '../mcp/tools.js';

export interface AppDeps {
  executor: Executor;
  operations: readonly AnyOperation[];
  store: Store;
  /** Pino options, a logger, or false for none (tests). */
  logger?: boolean | Record<string, unknown> | FastifyBaseLogger;
  /** Streamable HTTP MCP at /mcp. */
  mcp: McpHttpOptions;
}

/** One JSON log line per request, when it completes, carrying its request_id. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(
    error: Error | null,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      path: request.routeOptions.url ?? request.url.split('?')[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request');
  }
}

/** Builds the HTTP server without listening: tests inject requests, the CLI listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    genReqId: () => randomUUID(),
    logController: new OneLinePerRequest({ requestIdLogLabel: 'request_id' }),
    bodyLimit: 64 * 1024,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installErrorHandling(app);

  app.get('/healthz', async (request, reply) => {
    const ready = await deps.store.ping().catch(() => false);
    if (!ready) return reply.code(503).send(errorBody('unavailable', request.id));
    return { status: 'ok' };
  });

  for (const operation of deps.operations) mountOperation(app, deps.executor, operation);
  mountMcpHttp(app, deps.executor, toolsetOf(deps.operations), deps.mcp);
  return app;
}
