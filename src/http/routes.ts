import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { TOKEN_SCOPES } from '../auth/scopes.js';
import { ApiError, ReportTimeoutError } from '../errors.js';
import type { Executor } from '../operations/executor.js';
import type { AnyOperation } from '../operations/operation.js';
import {
  BODY_NOT_JSON,
  QUERY_ON_POST,
  repeatedParameterMessage,
} from '../operations/strictness.js';
import { authorizationOf } from './authorization.js';
import { ALL_SCOPES } from './resource-metadata.js';
import { serializeEnvelope } from './envelope-serializer.js';
import { sendParts } from './raw-answer.js';
import type { WatchAnswer } from './slow-readers.js';

const JSON_UTF8 = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /**
     * When the request arrived: the start of the event loop's turn that read it (turnStart).
     * Deadlines count from here.
     */
    receivedAt: number;
  }
}

/**
 * A query parameter given twice arrives as an array: a strictness failure (SPEC "Errors"), whose
 * message names it only when it is one of the operation's own (strictness.ts).
 */
function repeatedParameter(operation: AnyOperation, query: unknown): string | null {
  const entries = Object.entries(query as Record<string, unknown>);
  const repeated = entries.find(([, value]) => Array.isArray(value));
  if (!repeated) return null;
  // An unknown parameter is what the executor would answer first: that is the message then.
  const unknown = entries.find(([name]) => !Object.hasOwn(operation.input.properties, name));
  return repeatedParameterMessage(operation.input, (unknown ?? repeated)[0]);
}

/**
 * What the server took an accepted credential for: its role and scopes (as GitHub's
 * X-OAuth-Scopes says a token's), on every REST answer to it, so that a client learns from its
 * first call what it may call, and calls nothing its token would be refused (the web page,
 * DESIGN §4.17). An access key typed into a page says nothing of itself otherwise.
 */
export const TOKEN_ROLE_HEADER = 'x-token-role';
export const TOKEN_SCOPES_HEADER = 'x-token-scopes';

/** Authentication and quota, before the body is parsed: a bad token is 401 whatever the body. */
export async function authenticateAndAdmit(
  executor: Executor,
  request: FastifyRequest,
  reply?: FastifyReply,
): Promise<void> {
  const principal = await executor.authenticate(
    authorizationOf(request),
    request.receivedAt,
    request.clientAddress,
  );
  // Known before the quota is checked: a 429 of the quota is the caller's (the access trail
  // counts those per caller, DESIGN §4.17).
  request.principal = principal;
  if (reply) {
    reply.raw.setHeader(TOKEN_ROLE_HEADER, principal.role);
    const scopes = TOKEN_SCOPES.filter((scope) => principal.scopes.has(scope));
    reply.raw.setHeader(TOKEN_SCOPES_HEADER, scopes.join(' '));
  }
  await executor.admit(principal);
}

/**
 * Mounts one operation as a route. Authentication and quota run in `onRequest`; strictness,
 * scope and the operation follow in the executor. Validation is the executor's (shared with
 * MCP), not Fastify's.
 */
export function mountOperation(
  app: FastifyInstance,
  executor: Executor,
  operation: AnyOperation,
  watchAnswer: WatchAnswer,
): void {
  app.route({
    method: operation.method,
    url: operation.path,
    config: {
      meters: executor.deps.metrics?.requestMeters(operation.name, 'rest'),
      challengeScope: operation.scope ?? ALL_SCOPES,
      operation,
    },
    // A report out of time before its turn came (it waited behind others read in the same turn
    // of the event loop) is refused at once, before its body and query are read: that work would
    // end in the same refusal, later (issue 56). After its token, in DESIGN §4.1's order.
    onRequest: async (request, reply) => {
      await authenticateAndAdmit(executor, request, reply);
      if (operation.runsReports && executor.outOfTime(operation, request.receivedAt))
        throw new ReportTimeoutError();
    },
    handler: async (request, reply) => {
      const principal = request.principal as Principal;
      let input: unknown;
      if (operation.method === 'GET') {
        const repeated = repeatedParameter(operation, request.query);
        if (repeated !== null) throw new ApiError('not_found', {}, repeated);
        input = request.query;
      } else {
        // A POST takes its input from the body alone: any query parameter is unknown.
        if (Object.keys(request.query as object).length > 0)
          throw new ApiError('not_found', {}, QUERY_ON_POST);
        if (!request.headers['content-type']?.toLowerCase().startsWith('application/json')) {
          throw new ApiError('not_found', {}, BODY_NOT_JSON);
        }
        input = request.body;
      }
      request.seen = {};
      const data = await executor.run(operation, principal, input, {
        fromQueryString: operation.method === 'GET',
        receivedAt: request.receivedAt,
        seen: request.seen,
      });
      sendParts(request, reply, watchAnswer, JSON_UTF8, serializeEnvelope(data, request.id));
    },
  });
}
