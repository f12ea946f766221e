import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { FailedAttempts } from '../auth/failed-attempts.js';
import type { OAuthRecords } from '../store/sql/oauth-records.js';
import type { TokenReads } from '../store/store.js';
import { createAuthorizationServer } from './authorization-server.js';
import { mountInteractions, type DemoSignIn } from './interactions.js';
import { PAGES_CSS, PAGES_CSS_PATH } from './pages.js';
import type { ServerKeys } from './server-keys.js';

export const OIDC_DISCOVERY_PATH = '/.well-known/openid-configuration';
export const OAUTH_DISCOVERY_PATH = '/.well-known/oauth-authorization-server';
/** How often expired authorization records are removed. */
export const SWEEP_INTERVAL_MS = 3600_000;

export interface AuthorizationServerMount {
  /** The issuer: this server's resource identifier, known once it listens. */
  issuer: () => string;
  records: OAuthRecords;
  tokens: Pick<TokenReads, 'findTokenById' | 'findTokenByHash'>;
  keys: ServerKeys;
  proxy: boolean;
  demoAccounts?: readonly DemoSignIn[];
  now?: () => number;
  /** How client ID metadata documents are fetched (tests; see createAuthorizationServer). */
  fetch?: typeof fetch;
  /** Failed authentications per address, the API's own (VMS_READ_AUTH_FAILURES_PER_MINUTE). */
  failures?: FailedAttempts;
}

/** Where a client proves something (a code, a refresh token, its own secret). */
const CHECKED_PATHS = new Set(['/oauth/token', '/oauth/revoke', '/oauth/introspect']);
/** The provider's errors that are a failed proof, counted against the address. */
const FAILED_PROOFS = new Set(['invalid_grant', 'invalid_client']);

/**
 * Mounts the built-in authorization server on the app, at the same origin as the API (DESIGN
 * §4.12): oidc-provider's endpoints under /oauth/ and its metadata at the two discovery paths,
 * answered by the provider itself (its own body parsing, errors and CORS: a scope of their own
 * where Fastify reads no body); the sign-in and consent pages beside them. The provider is made
 * at the first request, when the server's own URL (its issuer) is known.
 */
export async function mountAuthorizationServer(
  app: FastifyInstance,
  mount: AuthorizationServerMount,
): Promise<void> {
  const now = mount.now ?? Date.now;
  const { failures } = mount;
  let made: Provider | null = null;
  const provider = async () => {
    if (made) return made;
    made = createAuthorizationServer({
      issuer: mount.issuer(),
      records: mount.records,
      tokens: mount.tokens,
      keys: mount.keys,
      proxy: mount.proxy,
      now: mount.now,
      fetch: mount.fetch,
    });
    // A wrong code, refresh token or client secret counts as a failed authentication of the
    // address it came from, as a wrong bearer token does on the API (issue 35, item 3).
    const counted = (ctx: { req: { socket: { remoteAddress?: string } } }, error: unknown) => {
      const code = (error as { error?: unknown }).error;
      const address = ctx.req.socket.remoteAddress;
      if (failures && address && typeof code === 'string' && FAILED_PROOFS.has(code))
        failures.failed(address, now());
    };
    made.on('grant.error', counted);
    made.on('revocation.error', counted);
    made.on('introspection.error', counted);
    return made;
  };

  // Expired records (codes, sessions, refresh tokens past their time) are not found any more;
  // they are removed an hour after the start, then hourly (never on a request's path).
  const sweep = setInterval(() => {
    mount.records.deleteExpiredOAuthRecords(now()).catch((error: unknown) => {
      app.log.warn({ err: error }, 'expired authorization records not removed');
    });
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  app.get(PAGES_CSS_PATH, (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(PAGES_CSS),
  );

  await app.register(async (scope) => {
    await scope.register(formbody);
    mountInteractions(scope, {
      provider,
      tokens: mount.tokens,
      demoAccounts: mount.demoAccounts,
      now: mount.now,
      failures,
    });
  });

  await app.register(async (scope) => {
    // The provider reads its own bodies: Fastify leaves them unread here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // An address past its failed authentications is answered before the provider reads anything,
    // in OAuth's error shape (RFC 6749 §5.2), 429 with Retry-After, its connection closed.
    if (failures)
      scope.addHook('onRequest', (request, reply, done) => {
        const wait = CHECKED_PATHS.has(request.url.split('?')[0])
          ? failures.blockedFor(request.ip, now())
          : 0;
        if (wait === 0) return done();
        void reply
          .code(429)
          .headers({ 'retry-after': String(wait), connection: 'close' })
          .send({
            error: 'temporarily_unavailable',
            error_description: `Too many failed authentications from this address; retry in ${wait} s.`,
          });
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
