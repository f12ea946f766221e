import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * CORS (docs/api.md "CORS"): a page on an origin listed in VMS_READ_ALLOWED_ORIGINS may call the
 * API and /mcp with its bearer token, and read the answer, errors included. `@fastify/cors` does
 * the protocol (preflight answered in its onRequest hook, before authentication and the quota;
 * the origin reflected; `Vary: Origin`); this file says for whom and where.
 *
 * Origins match exactly (config.ts normalises each entry as a browser writes `Origin`), so a
 * CORS origin is always an origin /mcp's own Origin check accepts. No credentials mode: the token
 * travels in `Authorization`, never in a cookie.
 */

/** The paths a browser client calls with a token; GET /mcp and DELETE /mcp answer 405. */
const MCP_PATH = '/mcp';
const API_PREFIX = '/api/v1/';
/** Token-free documents a browser client reads along the way (the 401's resource metadata). */
const DOCUMENTS = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/openapi.json',
]);

/**
 * What the server reads: the token, the body's type, MCP's protocol version; and the two headers
 * an MCP client may send on later requests (this stateless server ignores them), so that such a
 * client still reads the answer rather than failing in the browser.
 */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  'Last-Event-ID',
];
/**
 * Beyond the safelisted ones: the request id to quote, when to retry, how to authenticate, and
 * what the token may call (routes.ts).
 */
const EXPOSED_HEADERS = [
  'x-request-id',
  'Retry-After',
  'WWW-Authenticate',
  'Mcp-Session-Id',
  'x-token-role',
  'x-token-scopes',
];
/** How long a browser may keep a preflight's answer (Chromium keeps it at most 2 hours). */
const PREFLIGHT_MAX_AGE_S = 600;

/** The methods a path answers for a browser; null where CORS does not apply. */
function methodsFor(path: string): string | null {
  if (path === MCP_PATH) return 'GET, POST, DELETE';
  if (path.startsWith(API_PREFIX)) return 'GET, POST';
  if (DOCUMENTS.has(path)) return 'GET';
  return null;
}

/** The CORS answer for one request: `origin: false` leaves it without any CORS header. */
function corsFor(request: FastifyRequest, allowed: ReadonlySet<string>): FastifyCorsOptions {
  const origin = request.headers.origin;
  const methods = methodsFor(request.url.split('?', 1)[0]);
  if (origin === undefined || !allowed.has(origin) || methods === null) return { origin: false };
  // An OPTIONS that is not a preflight is no route of this API: 404, as without CORS.
  if (request.method === 'OPTIONS' && !request.headers['access-control-request-method'])
    return { origin: false };
  return {
    origin,
    methods,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
  };
}

/**
 * Registers CORS when origins are listed; with none, nothing is registered and no answer carries
 * a CORS header. Call it after the hook that sets x-request-id (a preflight carries it too) and
 * before any hook that can refuse a request (so that the refusal is readable by the page).
 */
export async function installCors(
  app: FastifyInstance,
  allowedOrigins: readonly string[],
): Promise<void> {
  if (allowedOrigins.length === 0) return;
  const allowed = new Set(allowedOrigins);
  await app.register(cors, {
    hook: 'onRequest',
    delegator: (request, callback) => callback(null, corsFor(request, allowed)),
  });
}
