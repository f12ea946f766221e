import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  errorBody,
  errorOutcome,
  InsufficientScopeError,
  logErrorOutcome,
} from '../errors.js';
import {
  BODY_EMPTY,
  BODY_FORBIDDEN_MEMBER,
  BODY_INVALID_JSON,
  BODY_NOT_JSON,
} from '../operations/strictness.js';
import { RESOURCE_METADATA_PATH } from './resource-metadata.js';
import type { ServerOrigin } from './server-origin.js';

/** What each of Fastify's refusals of a body says as a strictness 404 (strictness.ts). */
const BODY_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: BODY_NOT_JSON,
  FST_ERR_CTP_EMPTY_JSON_BODY: BODY_EMPTY,
  FST_ERR_CTP_INVALID_JSON_BODY: BODY_INVALID_JSON,
  VMS_ERR_FORBIDDEN_JSON_MEMBER: BODY_FORBIDDEN_MEMBER,
};

/**
 * Fastify's own client errors as ours: an oversized body is 413, any other is a strictness
 * failure (404), saying what was wrong with the body when it is one of BODY_MESSAGES.
 */
function fromFastifyError(error: FastifyError): ApiError | null {
  if (error instanceof ApiError) return null;
  const status = error.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('payload_too_large');
  return new ApiError(
    'not_found',
    {},
    Object.hasOwn(BODY_MESSAGES, error.code) ? BODY_MESSAGES[error.code] : undefined,
  );
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
    const outcome = errorOutcome(fromFastifyError(error) ?? error, request.id);
    logErrorOutcome(request.log, outcome, error);
    request.answerCode = outcome.body.error.code;
    // Why a presented token was refused, for whoever runs the identity provider (never the token).
    if (outcome.reason === 'unauthorized' && error instanceof ApiError && error.detail)
      request.log.debug({ reason: error.detail }, 'token refused');
    reply.headers(outcome.headers);
    const config = request.routeOptions.config;
    const metadata = `resource_metadata="${origin.ownFor(request.headers.host)}${config.resourceMetadataPath ?? RESOURCE_METADATA_PATH}"`;
    // 401 points at the resource metadata (RFC 9728) and names the scopes to ask for, so a client
    // can discover how to sign in; a bearer token that was presented is `invalid_token` (RFC
    // 6750 §3.1: a request that carried none gets no error code).
    if (outcome.reason === 'unauthorized') {
      const parts = ['realm="vms-read"'];
      if (/^bearer\s/i.test(request.headers.authorization ?? ''))
        parts.push('error="invalid_token"');
      parts.push(metadata);
      if (config.challengeScope) parts.push(`scope="${config.challengeScope}"`);
      reply.header('www-authenticate', `Bearer ${parts.join(', ')}`);
    }
    // With an OAuth grant that could hold the scope, a missing scope is a step-up: the challenge
    // says where to ask. A scope the subject can never hold is a plain refusal (DESIGN §4.16).
    if (error instanceof InsufficientScopeError && error.stepUp)
      reply.header('www-authenticate', `${outcome.headers['www-authenticate']}, ${metadata}`);
    return reply.code(outcome.status).send(outcome.body);
  };
}

export function installErrorHandling(app: FastifyInstance, answer: ErrorAnswer): void {
  app.setErrorHandler(answer);
  // A HEAD answer has no body (RFC 9110 §9.3.2): Fastify drops it on the HEAD routes it makes for
  // GET routes, but not on answers to a path that matches no route, which are errors of ours.
  app.addHook('onSend', (request, _reply, payload, done) =>
    done(null, request.method === 'HEAD' ? '' : payload),
  );
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', request.id)),
  );
}
