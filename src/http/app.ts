import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Executor } from '../operations/executor.js';
import type { AnyOperation } from '../operations/operation.js';
import type { Store } from '../store/store.js';
import { errorBody } from '../errors.js';
import { installErrorHandling } from './error-handling.js';
import { mountOperation } from './routes.js';

export interface AppDeps {
  executor: Executor;
  operations: readonly AnyOperation[];
  store: Store;
  /** Pino options, a logger, or false for none (tests). */
  logger?: boolean | Record<string, unknown> | FastifyBaseLogger;
}

/** Builds the HTTP server without listening: tests inject requests, the CLI listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    genReqId: () => randomUUID(),
    requestIdLogLabel: 'request_id',
    disableRequestLogging: true,
    bodyLimit: 64 * 1024,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // One JSON log line per request, carrying its request_id.
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        path: request.routeOptions.url ?? request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
  installErrorHandling(app);

  app.get('/healthz', async (request, reply) => {
    const ready = await deps.store.ping().catch(() => false);
    if (!ready) return reply.code(503).send(errorBody('unavailable', request.id));
    return { status: 'ok' };
  });

  for (const operation of deps.operations) mountOperation(app, deps.executor, operation);
  return app;
}
