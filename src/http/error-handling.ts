import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ERRORS, errorBody, errorCodeOf } from '../errors.js';

/**
 * The one error handler: documented errors keep their status and headers; any other client
 * error Fastify raises (unparsable JSON, wrong content type, oversized body) is a strictness
 * failure, 404 `not_found`; the rest is 500 `internal` or 503, logged, with no stack or SQL in the body.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const fastifyStatus = (error as { statusCode?: number }).statusCode;
    if (
      !(error instanceof ApiError) &&
      typeof fastifyStatus === 'number' &&
      fastifyStatus >= 400 &&
      fastifyStatus < 500
    ) {
      return reply.code(404).send(errorBody('not_found', request.id));
    }
    const code = errorCodeOf(error);
    const { status } = ERRORS[code];
    if (status >= 500) request.log[status === 500 ? 'error' : 'warn']({ err: error }, code);
    if (status === 503) reply.header('retry-after', '1');
    if (error instanceof ApiError) reply.headers(error.headers);
    // 401 points at the resource metadata (RFC 9728), so an MCP client can discover how to authenticate.
    if (code === 'unauthorized') reply.header('www-authenticate', bearerChallenge(request));
    return reply.code(status).send(errorBody(code, request.id));
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', request.id)),
  );
}

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** This server's origin as the client reached it. */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function bearerChallenge(request: FastifyRequest): string {
  return `Bearer realm="vms-read", resource_metadata="${originOf(request)}${RESOURCE_METADATA_PATH}"`;
}
