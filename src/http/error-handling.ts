import type { FastifyInstance } from 'fastify';
import { ApiError, errorBody, StoreUnavailableError } from '../errors.js';
import { ReportTimeoutError } from '../store/report-errors.js';

/**
 * The one error handler: documented errors keep their status and headers; any other client
 * error Fastify raises (unparsable JSON, wrong content type, oversized body) is a strictness
 * failure, 404 `not_found`; the rest is 500 `internal`, logged, with no stack or SQL in the body.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      return reply
        .code(error.status)
        .headers(error.headers)
        .send(errorBody(error.code, request.id));
    }
    if (error instanceof ReportTimeoutError) {
      request.log.warn({ err: error }, 'report timed out');
      return reply
        .code(503)
        .header('retry-after', '1')
        .send(errorBody('query_timeout', request.id));
    }
    if (error instanceof StoreUnavailableError) {
      request.log.warn({ err: error }, 'store unavailable');
      return reply.code(503).header('retry-after', '1').send(errorBody('unavailable', request.id));
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return reply.code(404).send(errorBody('not_found', request.id));
    }
    request.log.error({ err: error }, 'internal error');
    return reply.code(500).send(errorBody('internal', request.id));
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', request.id)),
  );
}
