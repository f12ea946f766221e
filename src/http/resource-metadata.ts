import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../auth/scopes.js';
import type { ServerOrigin } from './server-origin.js';

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
export const MCP_PATH = '/mcp';
export const MCP_METADATA_PATH = `${RESOURCE_METADATA_PATH}${MCP_PATH}`;

/** Every scope, space-separated: the challenge of /mcp and of the change feed (any scope reads it). */
export const ALL_SCOPES = SCOPES.join(' ');

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The RFC 9728 metadata a 401 from this route points at (default: the API's). */
    resourceMetadataPath?: string;
    /** The scopes a 401 from this route names (`scope` of the challenge, DESIGN §4.12). */
    challengeScope?: string;
  }
}

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728, DESIGN §4.12): the API's at the root, the MCP
 * endpoint's under /mcp (§3.3: its `resource` is the endpoint's URL). It names the authorization
 * servers whose tokens are accepted, so an MCP host that met a 401 knows where to sign in.
 */
export function mountResourceMetadata(
  app: FastifyInstance,
  origin: ServerOrigin,
  authorizationServers: (origin: ServerOrigin) => readonly string[],
): void {
  const metadata = (resourcePath: string, host: string | undefined) => {
    const servers = authorizationServers(origin);
    return {
      resource: `${origin.resourceFor(host)}${resourcePath}`,
      resource_name: resourcePath ? 'vms-read MCP' : 'vms-read API',
      ...(servers.length > 0 ? { authorization_servers: [...servers] } : {}),
      bearer_methods_supported: ['header'],
      scopes_supported: [...SCOPES],
    };
  };
  app.get(RESOURCE_METADATA_PATH, async (request) => metadata('', request.headers.host));
  app.get(MCP_METADATA_PATH, async (request) => metadata(MCP_PATH, request.headers.host));
}
