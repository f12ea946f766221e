import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody, errorOutcome, logErrorOutcome, type ErrorCode } from '../errors.js';
import type { ServerOrigin } from './server-origin.js';

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The RFC 9728 metadata a 401 from this route points at (default: the API's). */
    resourceMetadataPath?: string;
  }
}

/** Fastify's own client errors: an oversized body is 413, any other is a strictness failure. */
function reasonOfFastifyError(error: FastifyError): ErrorCode | null {
  if (error instanceof ApiError) return null;
  const status = error.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  return error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'payload_too_large' : 'not_found';
}

export type ErrorAnswer = (
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) => FastifyReply;

/**
 * The one error answer of the REST shape, by the error policy MCP tool calls share
 * (`errorOutcome`): documented errors keep their status and headers; Fastify's client errors
 * become 413 or 404; the rest is 500 `internal` or 503, logged, with no stack or SQL in the body.
 */
export function errorAnswer(origin: ServerOrigin): ErrorAnswer {
  return (error, request, reply) => {
    const outcome = errorOutcome(error, request.id, reasonOfFastifyError(error) ?? undefined);
    logErrorOutcome(request.log, outcome, error);
    reply.headers(outcome.headers);
    // 401 points at the resource metadata (RFC 9728), so a client can discover how to authenticate.
    if (outcome.reason === 'unauthorized') {
      const path = request.routeOptions.config.resourceMetadataPath ?? RESOURCE_METADATA_PATH;
      reply.header(
        'www-authenticate',
        `Bearer realm="vms-read", resource_metadata="${origin.own()}${path}"`,
      );
    }
    return reply.code(outcome.status).send(outcome.body);
  };
}

export function installErrorHandling(app: FastifyInstance, answer: ErrorAnswer): void {
  app.setErrorHandler(answer);
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', request.id)),
  );
}
