import type { IncomingMessage } from 'node:http';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { ADDRESS_BOUNDS, AddressWindows, type AddressBoundName } from '../address-bounds.js';
import { UNUSED_CLIENTS_DEFAULTS } from '../network-config.js';
import type { OAuthRecords } from '../store/sql/oauth-records.js';
import type { TokenReads } from '../store/store.js';
import { createAuthorizationServer, OAUTH_ROUTES } from './authorization-server.js';
import { installGuards } from './guards.js';
import { mountInteractions, type DemoSignIn } from './interactions.js';
import {
  errorPage,
  PAGES_CSP,
  PAGES_CSS_PATH,
  pagesCss,
  SIGN_OUT_SCRIPT,
  SIGN_OUT_SCRIPT_PATH,
} from './pages.js';
import type { ServerKeys } from './server-keys.js';
import { tooManyUnused, UnusedClients } from './unused-clients.js';

export const OIDC_DISCOVERY_PATH = '/.well-known/openid-configuration';
export const OAUTH_DISCOVERY_PATH = '/.well-known/oauth-authorization-server';
/** How often expired authorization records (and unused clients) are removed (DESIGN §4.16). */
export const SWEEP_INTERVAL_MS = 5 * 60_000;
/** A registration request's body, as sent, at most (DESIGN §4.16). */
export const MAX_REGISTRATION_BYTES = 8 * 1024;
/**
 * An authorization request's query, at most: every parameter a client needs (a client ID
 * metadata document's URL, the redirect URI, scopes, PKCE, state, the resource) fits in a
 * fraction of it, and each request the server keeps (an interaction) holds its parameters.
 */
export const MAX_AUTHORIZATION_QUERY = 4 * 1024;

export interface AuthorizationServerMount {
  /** The issuer: this server's resource identifier, known once it listens. */
  issuer: () => string;
  /** The resource identifiers a token may be asked for (authorization-server.ts). */
  resources: () => readonly string[];
  /** The page's addresses, its redirect URIs. */
  pages: () => readonly string[];
  records: OAuthRecords;
  tokens: Pick<TokenReads, 'findTokenById' | 'findTokenByHash'>;
  keys: ServerKeys;
  demoAccounts?: readonly DemoSignIn[];
  now?: () => number;
  /** How client ID metadata documents are fetched (tests; see createAuthorizationServer). */
  fetch?: typeof fetch;
  /** The client's address, as the HTTP layer decided it (trusted proxies). */
  clientAddress: (raw: IncomingMessage) => string;
  /** Wrong credentials per address, the API's own (VMS_READ_AUTH_FAILURES_PER_MINUTE). */
  failures?: AddressWindows;
  /** Told of each refusal by a bound per address (the metrics). */
  refusedByAddress?: (bound: AddressBoundName) => void;
  /** VMS_READ_REGISTRATIONS_PER_HOUR; default ADDRESS_BOUNDS'. */
  registrationsPerHour?: number;
  /** VMS_READ_AUTHORIZATIONS_PER_HOUR; default ADDRESS_BOUNDS'. */
  authorizationsPerHour?: number;
  /** VMS_READ_UNUSED_CLIENT_HOURS: how long a registered client may wait for its first grant. */
  unusedClientHours?: number;
  /** VMS_READ_UNUSED_CLIENTS_MAX: how many clients without a grant may exist at once. */
  unusedClientsMax?: number;
  /** Told whenever records were removed (a token revoked, a grant ended). */
  onRecordsEnded?: () => void;
}

/** VMS_READ_UNUSED_CLIENT_HOURS' default. */
export const UNUSED_CLIENT_HOURS = UNUSED_CLIENTS_DEFAULTS.hours;

/** An answer in OAuth's error shape (RFC 6749 §5.2), given before the provider reads anything. */
function oauthRefusal(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  return reply.code(status).headers(headers).send({ error, error_description: description });
}

/**
 * Mounts the built-in authorization server on the app, at the same origin as the API (DESIGN
 * §4.12): oidc-provider's endpoints under /oauth/ and its metadata at the two discovery paths,
 * answered by the provider itself (its own body parsing, errors and CORS: a scope of their own
 * where Fastify reads no body); the sign-in and consent pages beside them. The provider is made
 * at the first request, when the server's own URL (its issuer) is known. Its bounds on what one
 * address may do (DESIGN §4.16) are checked before the provider reads a request, or after it
 * answered (guards.ts).
 */
export async function mountAuthorizationServer(
  app: FastifyInstance,
  mount: AuthorizationServerMount,
): Promise<void> {
  const now = mount.now ?? Date.now;
  const { failures, clientAddress, records } = mount;
  const registrations = new AddressWindows(
    'registrations',
    mount.registrationsPerHour ?? ADDRESS_BOUNDS.registrations.limit,
    mount.refusedByAddress,
  );
  const authorizations = new AddressWindows(
    'authorizations',
    mount.authorizationsPerHour ?? ADDRESS_BOUNDS.authorizations.limit,
    mount.refusedByAddress,
  );
  const unusedClients = new UnusedClients(
    records,
    mount.unusedClientsMax ?? UNUSED_CLIENTS_DEFAULTS.max,
    now,
  );
  let made: Provider | null = null;
  const provider = async () => {
    if (made) return made;
    made = createAuthorizationServer({
      issuer: mount.issuer(),
      resources: mount.resources,
      pages: mount.pages,
      unusedClientMs: (mount.unusedClientHours ?? UNUSED_CLIENT_HOURS) * 3600_000,
      unusedClients,
      onRecordsEnded: mount.onRecordsEnded,
      records,
      tokens: mount.tokens,
      keys: mount.keys,
      now: mount.now,
      fetch: mount.fetch,
    });
    installGuards(made, { records, clientAddress, failures, registrations, unusedClients, now });
    // The provider answers its own 500s ("oops! something went wrong"); they are ours to log.
    made.on('server_error', (ctx: { path?: string }, error: unknown) =>
      app.log.error({ err: error, path: ctx.path }, 'authorization server failed a request'),
    );
    return made;
  };

  // Expired records (codes, sessions, interactions, tokens past their time, clients that stayed
  // unused) are not found any more; they are removed every five minutes, never on a request's path.
  const sweep = setInterval(() => {
    records.deleteExpiredOAuthRecords(now()).catch((error: unknown) => {
      app.log.warn({ err: error }, 'expired authorization records not removed');
    });
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  const css = pagesCss();
  if (css !== null)
    app.get(PAGES_CSS_PATH, (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(css),
    );
  app.get(SIGN_OUT_SCRIPT_PATH, (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(SIGN_OUT_SCRIPT),
  );

  // The provider makes its URLs from the request it sees: they are the issuer's, whatever Host or
  // X-Forwarded-* a client or a proxy sent (provider.proxy reads the protocol written here).
  const asIssuers = (raw: IncomingMessage) => {
    const issuer = new URL(mount.issuer());
    raw.headers.host = issuer.host;
    raw.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    delete raw.headers['x-forwarded-host'];
    delete raw.headers['x-forwarded-port'];
    delete raw.headers.forwarded;
  };

  await app.register(async (scope) => {
    await scope.register(formbody);
    scope.addHook('onRequest', (request, _reply, done) => {
      asIssuers(request.raw);
      done();
    });
    mountInteractions(scope, {
      provider,
      tokens: mount.tokens,
      demoAccounts: mount.demoAccounts,
      now: mount.now,
      failures,
      clientAddress,
    });
  });

  await app.register(async (scope) => {
    // The provider reads its own bodies: Fastify leaves them unread here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.addHook('onRequest', async (request, reply) => {
      asIssuers(request.raw);
      const [path, query = ''] = request.url.split('?');
      const address = clientAddress(request.raw);
      if (path === OAUTH_ROUTES.registration && request.method === 'POST') {
        // Registration is open to anyone: bounded in size as sent (a body without a length is
        // refused, so the bound holds before a byte is read) and per address.
        const length = request.headers['content-length'];
        if (length === undefined)
          return oauthRefusal(
            reply,
            411,
            'invalid_client_metadata',
            'A registration must state its Content-Length.',
          );
        if (Number(length) > MAX_REGISTRATION_BYTES)
          return oauthRefusal(
            reply,
            400,
            'invalid_client_metadata',
            `A registration is at most ${MAX_REGISTRATION_BYTES} bytes.`,
          );
        const wait = await registrations.waitFor(address);
        if (wait > 0)
          return oauthRefusal(
            reply,
            429,
            'temporarily_unavailable',
            `Too many registrations from this address; retry in ${wait} s.`,
            { 'retry-after': String(wait) },
          );
        // The deployment's ceiling on unused clients, whatever the address (the provider's
        // adapter holds it again when it keeps the client: registrations at once).
        const full = await unusedClients.waitFor();
        if (full > 0)
          return oauthRefusal(reply, 429, 'temporarily_unavailable', tooManyUnused(full), {
            'retry-after': String(full),
          });
      }
      if (path === OAUTH_ROUTES.authorization) {
        // Each authorization request is kept until it ends (an interaction, ten minutes): its
        // size and how many one address starts are bounded.
        const refuse = (status: number, title: string, text: string) =>
          reply
            .code(status)
            .headers({ 'content-security-policy': PAGES_CSP })
            .type('text/html; charset=utf-8')
            .send(errorPage(title, text));
        if (query.length > MAX_AUTHORIZATION_QUERY)
          return refuse(
            400,
            'This sign-in request is too long',
            `An authorization request is at most ${MAX_AUTHORIZATION_QUERY} characters of parameters. Go back to the app.`,
          );
        const wait = await authorizations.take(address);
        if (wait > 0) {
          reply.header('retry-after', String(wait));
          return refuse(
            429,
            'Too many sign-ins from here',
            `This address started too many sign-ins this hour. Try again in ${Math.ceil(wait / 60)} minutes.`,
          );
        }
      }
    });
    const answer = async (request: FastifyRequest, reply: FastifyReply, path?: string) => {
      const callback = (await provider()).callback();
      reply.hijack();
      if (path !== undefined) request.raw.url = path;
      callback(request.raw, reply.raw);
    };
    const methods = ['GET', 'POST', 'OPTIONS', 'PUT', 'DELETE'] as const;
    scope.route({
      method: [...methods],
      url: '/oauth/*',
      handler: (req, reply) => answer(req, reply),
    });
    scope.route({
      method: ['GET', 'OPTIONS'],
      url: OIDC_DISCOVERY_PATH,
      handler: (req, reply) => answer(req, reply),
    });
    // RFC 8414's path, answered with the same document (one issuer, the same metadata).
    scope.route({
      method: ['GET', 'OPTIONS'],
      url: OAUTH_DISCOVERY_PATH,
      handler: (req, reply) => answer(req, reply, OIDC_DISCOVERY_PATH),
    });
  });
}
