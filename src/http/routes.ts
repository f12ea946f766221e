import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import type { Executor } from '../operations/executor.js';
import type { AnyOperation } from '../operations/operation.js';
import { envelopeSerializer } from './envelope-serializer.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** A query parameter given twice arrives as an array: a strictness failure (SPEC "Errors"). */
function hasRepeatedParameter(query: unknown): boolean {
  return Object.values(query as Record<string, unknown>).some(Array.isArray);
}

/**
 * Mounts one operation as a route. Authentication and quota run in `onRequest`, before the body
 * is parsed, so a bad token is 401 whatever the body; strictness, scope and the operation follow
 * in the executor. Validation is the executor's (shared with MCP), not Fastify's.
 */
export function mountOperation(
  app: FastifyInstance,
  executor: Executor,
  operation: AnyOperation,
): void {
  const serialize = envelopeSerializer(operation);
  app.route({
    method: operation.method,
    url: operation.path,
    onRequest: async (request: FastifyRequest) => {
      const principal = await executor.authenticate(request.headers.authorization);
      executor.admit(principal);
      request.principal = principal;
    },
    handler: async (request, reply) => {
      const principal = request.principal as Principal;
      let input: unknown;
      if (operation.method === 'GET') {
        if (hasRepeatedParameter(request.query)) throw new ApiError('not_found');
        input = { ...(request.query as object) };
      } else {
        // A POST takes its input from the body alone: any query parameter is unknown.
        if (Object.keys(request.query as object).length > 0) throw new ApiError('not_found');
        if (!request.headers['content-type']?.toLowerCase().startsWith('application/json')) {
          throw new ApiError('not_found');
        }
        input = request.body;
      }
      const data = await executor.run(operation, principal, input, operation.method === 'GET');
      return reply.type('application/json; charset=utf-8').send(serialize(data, request.id));
    },
  });
}
