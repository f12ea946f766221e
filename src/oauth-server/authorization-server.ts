import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { WEB_CLIENT_ID, WEB_CLIENT_NAME } from '../auth/own-tokens.js';
import { TOKEN_SCOPES } from '../auth/scopes.js';
import type { OAuthRecords } from '../store/sql/oauth-records.js';
import { liveKey } from '../auth/tokens.js';
import type { TokenReads } from '../store/store.js';
import { checkClientMetadata } from './client-policy.js';
import { errorPage, PAGES_CSP, SIGN_OUT_CSP, signedOutPage, signOutPage } from './pages.js';
import { recordAdapter } from './record-adapter.js';
import { OFFERED_SCOPES } from './scope-words.js';
import { SIGNING_ALGORITHM, type ServerKeys } from './server-keys.js';
import type { UnusedClients } from './unused-clients.js';

/** Where oidc-provider's endpoints are mounted (the discovery documents are at the root). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  pushed_authorization_request: '/oauth/par',
  end_session: '/oauth/end-session',
  userinfo: '/oauth/userinfo',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  introspection: '/oauth/introspect',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
} as const;

/** Lifetimes, in seconds. */
export const TTL = {
  accessToken: 3600,
  authorizationCode: 60,
  interaction: 600,
  session: 24 * 3600,
  /** A refresh token, and the grant behind it: 30 days without use ends them. */
  refreshToken: 30 * 24 * 3600,
} as const;

/** The public client the web page signs in as (DESIGN §4.12, "The page"). */
export { WEB_CLIENT_ID };

export interface AuthorizationServerDeps {
  /** The issuer identifier: the resource identifier (VMS_READ_PUBLIC_URL, or the address). */
  issuer: string;
  /**
   * The resource identifiers a token may be asked for (RFC 8707): this server's, with and
   * without `/mcp`, under each name a loopback server answers to (DESIGN §4.16).
   */
  resources: () => readonly string[];
  /** Where the page is, for each of those names: its redirect URIs (sign-in and sign-out). */
  pages: () => readonly string[];
  /** How long a registered client without a grant lives (VMS_READ_UNUSED_CLIENT_HOURS), ms. */
  unusedClientMs: number;
  /** The ceiling on clients without a grant (VMS_READ_UNUSED_CLIENTS_MAX), counted in the store. */
  unusedClients: UnusedClients;
  /** Told whenever records were removed (a token revoked, a grant ended). */
  onRecordsEnded?: () => void;
  records: OAuthRecords;
  tokens: Pick<TokenReads, 'findTokenById'>;
  keys: ServerKeys;
  now?: () => number;
  /**
   * How client ID metadata documents are fetched; oidc-provider's own by default (https, public
   * addresses only). Tests give one that reaches a document served on loopback.
   */
  fetch?: typeof fetch;
}

/**
 * The built-in authorization server (DESIGN §4.12): oidc-provider, OpenID Certified, configured as
 * its documentation says for an OAuth 2.1 server of one resource. Authorization code with PKCE
 * (S256) only; refresh tokens when `offline_access` is asked for, rotated at every use (a reused
 * one revokes its whole grant); RFC 8707 resource indicators, and only this server's identifiers
 * (a token's `aud` is the one asked for); dynamic client registration and client ID metadata
 * documents; `iss` in the authorization response (RFC 9207); revocation. Its JWT access tokens
 * are opaque, kept in the store like its refresh tokens, so that revoking one, or the grant
 * behind it (sign-out, a replayed refresh token or code), ends it at its next request (DESIGN
 * §4.16); the resource server reads them from the store (`OAuthRecords`). Whoever signed in is an
 * access key: its id is the grant's account.
 */
export function createAuthorizationServer(deps: AuthorizationServerDeps): Provider {
  const now = deps.now ?? Date.now;
  const configuration: Configuration = {
    adapter: recordAdapter(
      deps.records,
      now,
      deps.unusedClientMs,
      deps.unusedClients,
      deps.onRecordsEnded,
    ),
    jwks: deps.keys.signing as Configuration['jwks'],
    cookies: {
      keys: deps.keys.cookies,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    clients: [
      {
        client_id: WEB_CLIENT_ID,
        client_name: WEB_CLIENT_NAME,
        token_endpoint_auth_method: 'none',
        redirect_uris: [...deps.pages()],
        post_logout_redirect_uris: [...deps.pages()],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: SIGNING_ALGORITHM,
      token_endpoint_auth_method: 'none',
    },
    scopes: OFFERED_SCOPES,
    // The validator runs for every client (its property is never sent): what registration
    // accepts (client-policy.ts; the page's own client is ours). A client's registered `scope`
    // is not a ceiling here: MCP clients register with the scope they first ask for, then step
    // up to more (DESIGN §4.12). What a token carries is bounded by what the person allowed and
    // the access key holds, at every request: the validator drops the registered scope.
    extraClientMetadata: {
      properties: ['vms_read_scope_ceiling'],
      validator: (_ctx, _key, _value, metadata) => {
        if (metadata.client_id !== WEB_CLIENT_ID) checkClientMetadata(metadata);
        delete metadata.scope;
      },
    },
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    enabledJWA: {
      idTokenSigningAlgValues: [SIGNING_ALGORITHM],
      requestObjectSigningAlgValues: [SIGNING_ALGORITHM],
    },
    features: {
      devInteractions: { enabled: false },
      // Open registration (MCP hosts register themselves), without the registration access
      // token: nothing here manages a client after it registered, so none is kept per client.
      registration: {
        enabled: true,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
      },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      // Sign out ends the server's own session in this browser (DESIGN §4.16): the page sends the
      // person here; the session and the grants that do not outlive it (no offline_access) end.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.set('content-security-policy', SIGN_OUT_CSP);
          ctx.body = signOutPage(form);
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.set('content-security-policy', PAGES_CSP);
          ctx.body = signedOutPage();
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => deps.issuer,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!deps.resources().includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope: TOKEN_SCOPES.join(' '),
            audience: indicator,
            accessTokenTTL: TTL.accessToken,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    findAccount: async (_ctx, id) =>
      (await liveKey(deps.tokens, id, now()))
        ? { accountId: id, claims: async () => ({ sub: id }) }
        : undefined,
    interactions: { url: async (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    routes: OAUTH_ROUTES,
    ttl: {
      AccessToken: TTL.accessToken,
      AuthorizationCode: TTL.authorizationCode,
      Interaction: TTL.interaction,
      Session: TTL.session,
      Grant: TTL.refreshToken,
      RefreshToken: TTL.refreshToken,
      IdToken: TTL.accessToken,
      ClientCredentials: TTL.accessToken,
    },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.set('content-security-policy', PAGES_CSP);
      ctx.body = errorPage(
        'Sign-in could not go on',
        `${String(out.error)}: ${String(out.error_description ?? '')}`,
      );
    },
  };
  const provider = new Provider(deps.issuer, configuration);
  // Koa reads X-Forwarded-Proto only when told to: mount.ts writes it (and Host) from the issuer
  // on every request it hands over, so the URLs the provider makes are the issuer's.
  provider.proxy = true;
  return provider;
}
