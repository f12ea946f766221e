import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SCOPES } from '../auth/scopes.js';
import { ApiError, errorBody } from '../errors.js';
import { originOf, RESOURCE_METADATA_PATH } from '../http/error-handling.js';
import type { Executor } from '../operations/executor.js';
import { createMcpServer } from './server.js';
import type { Toolset } from './tools.js';

export interface McpHttpOptions {
  /** Origins besides the server's own that may call /mcp from a browser (VMS_READ_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
}

export function allowedOriginsFromEnv(value = process.env.VMS_READ_ALLOWED_ORIGINS): string[] {
  return (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
}

/** A browser's Origin must be this server's own or listed; a request without Origin is not from a browser. */
function checkOrigin(request: FastifyRequest, allowed: readonly string[]): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (origin !== originOf(request) && !allowed.includes(origin)) throw new ApiError('forbidden');
}

/**
 * Streamable HTTP at POST /mcp, stateless: each request gets its own server and transport, bound
 * to the caller's bearer token; every tool call then goes through the executor like HTTP does.
 * Also serves the RFC 9728 resource metadata that 401 challenges point at.
 */
export function mountMcpHttp(
  app: FastifyInstance,
  executor: Executor,
  toolset: Toolset,
  options: McpHttpOptions,
): void {
  const metadata = (request: FastifyRequest) => ({
    resource: originOf(request),
    resource_name: 'vms-read',
    bearer_methods_supported: ['header'],
    scopes_supported: [...SCOPES],
  });
  app.get(RESOURCE_METADATA_PATH, async (request) => metadata(request));
  app.get(`${RESOURCE_METADATA_PATH}/mcp`, async (request) => metadata(request));

  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: '/mcp',
    handler: async (request, reply) =>
      reply.code(405).header('allow', 'POST').send(errorBody('method_not_allowed', request.id)),
  });

  app.post('/mcp', {
    onRequest: async (request) => {
      checkOrigin(request, options.allowedOrigins);
      await executor.authenticate(request.headers.authorization);
    },
    handler: async (request, reply) => {
      const server = createMcpServer(executor, toolset, request.headers.authorization);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
}
