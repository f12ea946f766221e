import { AccessTokenVerifier } from './auth/access-tokens.js';
import type { ServerOrigin } from './http/server-origin.js';
import type { DemoSignIn } from './oauth-server/interactions.js';
import type { AuthorizationServerMount } from './oauth-server/mount.js';
import { publicKeySet, serverKeys } from './oauth-server/server-keys.js';
import type { OAuthIssuer } from './oauth-issuers.js';
import type { Store } from './store/store.js';

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
}

export interface Identity {
  accessTokens?: AccessTokenVerifier;
  /** The built-in server to mount, when on (its issuer is the server's resource identifier). */
  authorizationServer?: Omit<AuthorizationServerMount, 'issuer' | 'proxy'>;
  /** The authorization servers the resource metadata names: the built-in one first. */
  authorizationServers: (origin: ServerOrigin) => string[];
}

/** The `aud` values an OAuth token may carry: the resource identifier, and it with `/mcp`. */
function resourceIdentifiers(origin: ServerOrigin | undefined): string[] {
  if (!origin) return [];
  const resource = origin.resource();
  return [resource, `${resource}/mcp`];
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
  const accessTokens =
    options.accessTokens ??
    (issuers.length > 0 || keys
      ? new AccessTokenVerifier(issuers, () => resourceIdentifiers(origin()), {
          builtIn: keys
            ? { issuer: () => origin()?.resource() ?? '', keys: publicKeySet(keys.signing) }
            : undefined,
        })
      : undefined);
  return {
    accessTokens,
    authorizationServer: keys
      ? {
          keys,
          records: options.store.authorizationRecords(),
          tokens: options.store,
          demoAccounts: options.demoAccounts,
          fetch: options.oauthFetch,
        }
      : undefined,
    authorizationServers: (own) => (keys ? [own.resource(), ...external] : external),
  };
}
