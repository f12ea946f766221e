import { AccessTokenVerifier } from './auth/access-tokens.js';
import { OwnTokens } from './auth/own-tokens.js';
import type { ServerOrigin } from './http/server-origin.js';
import type { DemoSignIn } from './oauth-server/interactions.js';
import type { AuthorizationServerMount } from './oauth-server/mount.js';
import { serverKeys } from './oauth-server/server-keys.js';
import type { OAuthIssuer } from './oauth-issuers.js';
import type { Store } from './store/store.js';

/** What VMS_READ_PREFERRED_ISSUER says for the built-in authorization server. */
export const BUILT_IN_ISSUER = 'built-in';

/** Who may sign in, and how (DESIGN §4.12): what createService needs to know. */
export interface IdentityOptions {
  store: Store;
  /** Identity providers whose JWT access tokens are accepted (VMS_READ_OAUTH_ISSUERS). */
  oauthIssuers?: readonly OAuthIssuer[];
  /** The built-in authorization server (VMS_READ_OAUTH_SERVER; off unless asked for). */
  oauthServer?: boolean;
  /** Accounts the built-in server's sign-in page offers (`vms-read demo`). */
  demoAccounts?: readonly DemoSignIn[];
  /** Checks tokens; made here unless given. */
  accessTokens?: AccessTokenVerifier;
  /** How the built-in server fetches client ID metadata documents (tests only). */
  oauthFetch?: typeof fetch;
  /**
   * The authorization server the resource metadata names first, which MCP hosts sign in with
   * (VMS_READ_PREFERRED_ISSUER): `built-in`, or one of `oauthIssuers`. Unset: the organisation's
   * server the page signs in with (VMS_READ_WEB_ISSUER) when it is one of them, else the
   * built-in server when it is on.
   */
  preferredIssuer?: string;
  /** The organisation's server the page signs in with (VMS_READ_WEB_ISSUER). */
  webSignIn?: { issuer: string };
  /**
   * VMS_READ_REGISTRATIONS_PER_HOUR, VMS_READ_AUTHORIZATIONS_PER_HOUR, VMS_READ_UNUSED_CLIENT_HOURS,
   * VMS_READ_UNUSED_CLIENTS_MAX.
   */
  registrationsPerHour?: number;
  authorizationsPerHour?: number;
  unusedClientHours?: number;
  unusedClientsMax?: number;
}

export interface Identity {
  accessTokens?: AccessTokenVerifier;
  /** The built-in server's access tokens, read from its records (absent when it is off). */
  ownTokens?: OwnTokens;
  /** The built-in server to mount, when on (its issuer is the server's resource identifier). */
  authorizationServer?: Omit<
    AuthorizationServerMount,
    'issuer' | 'resources' | 'pages' | 'clientAddress' | 'failures' | 'refusedByAddress'
  >;
  /** The authorization servers the resource metadata names, the preferred one first. */
  authorizationServers: (origin: ServerOrigin) => string[];
}

/**
 * The token checks and the authorization server of a service. The server's origin is known only
 * once its app exists (and its address once it listens), so it is asked for when needed.
 */
export async function setUpIdentity(
  options: IdentityOptions,
  origin: () => ServerOrigin | undefined,
): Promise<Identity> {
  const issuers = options.oauthIssuers ?? [];
  const external = issuers.map((entry) => entry.issuer);
  const keys = options.oauthServer ? await serverKeys(options.store) : null;
  const audiences = () => origin()?.resources() ?? [];
  const accessTokens =
    options.accessTokens ??
    (issuers.length > 0 ? new AccessTokenVerifier(issuers, audiences) : undefined);
  const records = options.store.authorizationRecords();
  const ownTokens = keys
    ? new OwnTokens(records, () => origin()?.resource() ?? '', audiences)
    : undefined;
  const preferred =
    options.preferredIssuer ??
    (options.webSignIn && external.includes(options.webSignIn.issuer)
      ? options.webSignIn.issuer
      : BUILT_IN_ISSUER);
  return {
    accessTokens,
    ownTokens,
    authorizationServer: keys
      ? {
          keys,
          records,
          tokens: options.store,
          demoAccounts: options.demoAccounts,
          fetch: options.oauthFetch,
          registrationsPerHour: options.registrationsPerHour,
          authorizationsPerHour: options.authorizationsPerHour,
          unusedClientHours: options.unusedClientHours,
          unusedClientsMax: options.unusedClientsMax,
          onRecordsEnded: () => ownTokens?.ended(),
        }
      : undefined,
    authorizationServers: (own) => {
      const all = keys ? [own.resource(), ...external] : external;
      const first = preferred === BUILT_IN_ISSUER ? (keys ? own.resource() : undefined) : preferred;
      return first !== undefined && all.includes(first)
        ? [first, ...all.filter((issuer) => issuer !== first)]
        : all;
    },
  };
}
