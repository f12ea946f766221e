import type { IncomingMessage } from 'node:http';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AddressWindows } from '../address-bounds.js';
import type { OAuthRecords } from '../store/sql/oauth-records.js';
import { OAUTH_ROUTES } from './authorization-server.js';
import { errorPage, PAGES_CSP } from './pages.js';
import { USED_CLIENT } from './record-adapter.js';
import type { UnusedClients } from './unused-clients.js';

/** Where a client proves something (a code, a refresh token, its own secret). */
const CHECKED_PATHS = new Set<string>([OAUTH_ROUTES.token, OAUTH_ROUTES.revocation]);
/** The provider's errors that are a failed proof, counted against the address. */
const FAILED_PROOFS = new Set(['invalid_grant', 'invalid_client']);

export interface GuardDeps {
  records: OAuthRecords;
  /** The client's address, as the HTTP layer decided it for this request. */
  clientAddress: (raw: IncomingMessage) => string;
  /** Wrong credentials per address, shared with the API (VMS_READ_AUTH_FAILURES_PER_MINUTE). */
  failures?: AddressWindows;
  /** Registrations per address (VMS_READ_REGISTRATIONS_PER_HOUR). */
  registrations?: AddressWindows;
  /** The ceiling on unused clients (VMS_READ_UNUSED_CLIENTS_MAX). */
  unusedClients?: UnusedClients;
  now: () => number;
}

/**
 * An authorization response's error and its description, read off a redirect (query or
 * fragment) or a form_post page; null for a response that is no error.
 */
function errorOfResponse(ctx: KoaContextWithOIDC): { error: string; description: string } | null {
  const location = ctx.response.get('location');
  if (location) {
    const url = URL.parse(location);
    if (!url) return null;
    const fragment = new URLSearchParams(url.hash.slice(1));
    const params = url.searchParams.has('error') ? url.searchParams : fragment;
    const error = params.get('error');
    return error === null ? null : { error, description: params.get('error_description') ?? '' };
  }
  const body = typeof ctx.body === 'string' ? ctx.body : '';
  const field = (name: string) =>
    new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(body)?.[1];
  const error = field('error');
  return error === undefined ? null : { error, description: field('error_description') ?? '' };
}

/**
 * The authorization server's policy around oidc-provider's endpoints, as its documentation offers
 * (`provider.use`: a Koa middleware before and after each request):
 *
 * - a wrong code, refresh token or client secret at the token or revocation endpoint counts as a
 *   failed authentication of its address; past the limit such an answer is 429 (Retry-After);
 *   a correct one is never refused (DESIGN §4.16);
 * - a registration counts against its address once it succeeded; one the adapter refused at the
 *   ceiling on unused clients (registrations at once) says when to retry (`Retry-After`);
 * - not an open redirector (RFC 9700 §4.11.2): a failing authorization request of a client that has
 *   never had a grant gets an error page, not a redirect to a URI anyone could have registered a
 *   minute ago, whether or not the browser holds a person's session: a session says who the
 *   person is, not that they ever chose this client (a link to `prompt=none`, or without PKCE,
 *   would otherwise bounce anyone signed in to the registrant's page);
 * - a plain OAuth request (no `openid`) asking for `offline_access` without `prompt` gets
 *   `prompt=consent`, the condition under which the library issues refresh tokens (OpenID
 *   Connect's rule, which OAuth 2.1 clients do not know).
 */
export function installGuards(provider: Provider, deps: GuardDeps): void {
  provider.use(async (koa, next) => {
    const ctx = koa as KoaContextWithOIDC;
    if (ctx.path === OAUTH_ROUTES.authorization && ctx.method === 'GET') askConsentForOffline(ctx);
    await next();
    const address = deps.clientAddress(ctx.req);
    if (CHECKED_PATHS.has(ctx.path)) {
      const body = ctx.body as { error?: unknown } | undefined;
      if (ctx.status < 400 || !FAILED_PROOFS.has(String(body?.error)) || !deps.failures) return;
      const wait = await deps.failures.waitFor(address);
      if (wait === 0) {
        await deps.failures.count(address);
        return;
      }
      ctx.status = 429;
      ctx.set('retry-after', String(wait));
      ctx.set('connection', 'close');
      ctx.body = {
        error: 'temporarily_unavailable',
        error_description: `Too many failed authentications from this address; retry in ${wait} s.`,
      };
    } else if (ctx.path === OAUTH_ROUTES.registration && ctx.method === 'POST') {
      if (ctx.status === 201) await deps.registrations?.count(address);
      if (ctx.status === 429 && deps.unusedClients)
        ctx.set('retry-after', String(Math.max(1, await deps.unusedClients.waitFor())));
    } else if (ctx.path === OAUTH_ROUTES.authorization) {
      await refuseOpenRedirect(ctx, deps);
    }
  });
}

function askConsentForOffline(ctx: KoaContextWithOIDC): void {
  const scopes = String(ctx.query.scope ?? '').split(' ');
  if (!scopes.includes('offline_access') || scopes.includes('openid')) return;
  if (ctx.query.prompt !== undefined) return;
  ctx.query = { ...ctx.query, prompt: 'consent' };
}

async function refuseOpenRedirect(ctx: KoaContextWithOIDC, deps: GuardDeps): Promise<void> {
  const refused = errorOfResponse(ctx);
  if (refused === null) return;
  const clientId = ctx.oidc?.client?.clientId;
  if (clientId && (await deps.records.findOAuthRecord(USED_CLIENT, clientId, deps.now()))) return;
  ctx.remove('location');
  ctx.status = 400;
  ctx.type = 'html';
  ctx.set('content-security-policy', PAGES_CSP);
  const { error, description } = refused;
  ctx.body = errorPage(
    'This app asked for something it cannot have',
    `The sign-in stopped here (${error}${description ? `: ${description}` : ''}). Go back to the app and try again; if it happens again, the app needs to be fixed.`,
  );
}
