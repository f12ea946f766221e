import * as oauth from 'oauth4webapi';

/**
 * Signing in with OAuth (DESIGN §4.12, "The page"): the authorization code flow with PKCE, as a
 * public client, through oauth4webapi, against the authorization server the server names in
 * /app/sign-in.json (its own, or the organisation's). Tokens live in sessionStorage only (gone
 * with the tab); the access token is refreshed before it expires, and both are revoked at
 * sign-out.
 */

/** What the server says about signing in (src/http/web-app.ts). */
export interface SignInSettings {
  /** The authorization server, or null when there is none (access keys only). */
  issuer: string | null;
  clientId: string | null;
  /** The API's resource identifier, the `resource` asked for (RFC 8707). */
  resource: string;
  /** The page's own address at the server (where sign-in comes back to). */
  page?: string;
  /** The accounts the server's own sign-in page offers one click away (a demo), by label. */
  demoAccounts?: string[];
}

interface Tokens {
  issuer: string;
  clientId: string;
  accessToken: string;
  refreshToken: string | null;
  /** When the access token expires, in ms since the epoch. */
  expiresAt: number;
}

interface Pending {
  issuer: string;
  clientId: string;
  state: string;
  verifier: string;
  /** The page's hash route when sign-in began, to return to. */
  hash: string;
}

const TOKENS = 'vms-read-oauth';
const PENDING = 'vms-read-oauth-pending';
/**
 * Scopes asked for: SPEC's four, the access trail's (DESIGN §4.17: the page shows it to a staff
 * key that holds it), and offline_access for a refresh token. The token gets those the key
 * holds (RFC 6749 §3.3: fewer than asked, none refused); the API says which (session/reach.ts).
 */
const SCOPE = 'read:program read:financial read:workforce read:pii read:audit offline_access';
/** Refresh when the access token has less than this left. */
const REFRESH_MARGIN_MS = 60_000;

const redirectUri = () => `${location.origin}/app`;

function read<T>(key: string): T | null {
  try {
    return JSON.parse(sessionStorage.getItem(key) ?? 'null') as T | null;
  } catch {
    return null;
  }
}

/** The server's metadata and the page as its client; http is allowed on a loopback issuer. */
async function serverOf(issuer: string) {
  const url = new URL(issuer);
  const insecure = url.protocol === 'http:';
  const options = { [oauth.allowInsecureRequests]: insecure };
  let as: oauth.AuthorizationServer;
  try {
    as = await oauth.processDiscoveryResponse(
      url,
      await oauth.discoveryRequest(url, { ...options, algorithm: 'oauth2' }),
    );
  } catch {
    as = await oauth.processDiscoveryResponse(
      url,
      await oauth.discoveryRequest(url, { ...options, algorithm: 'oidc' }),
    );
  }
  return { as, options };
}

export async function loadSettings(): Promise<SignInSettings> {
  const response = await fetch('/app/sign-in.json');
  return (await response.json()) as SignInSettings;
}

/** Sends the browser to the authorization server; it comes back to /app with a code. */
export async function beginSignIn(settings: SignInSettings): Promise<void> {
  if (!settings.issuer || !settings.clientId) throw new Error('no authorization server');
  const { as } = await serverOf(settings.issuer);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const pending: Pending = {
    issuer: settings.issuer,
    clientId: settings.clientId,
    state,
    verifier,
    hash: location.hash,
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint as string);
  url.searchParams.set('client_id', settings.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', SCOPE);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('resource', settings.resource);
  // offline_access (a refresh token) counts only with prompt=consent (OpenID Connect Core §11).
  url.searchParams.set('prompt', 'consent');
  location.assign(url.href);
}

/**
 * When the page is the end of a sign-in (`?code=` or `?error=` from the authorization server):
 * checks the answer (state, iss), exchanges the code, keeps the tokens and puts the address
 * back to the route sign-in began from. Null when this load is not one; throws when sign-in
 * failed (denied, a stale state), with the server's words.
 */
export async function finishSignIn(settings: SignInSettings): Promise<boolean> {
  const here = new URL(location.href);
  if (!here.searchParams.has('code') && !here.searchParams.has('error')) return false;
  const pending = read<Pending>(PENDING);
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `/app${pending?.hash ?? ''}`);
  if (!pending) throw new Error('This sign-in was not started in this tab. Sign in again.');
  const { as, options } = await serverOf(pending.issuer);
  const client: oauth.Client = { client_id: pending.clientId };
  const params = oauth.validateAuthResponse(as, client, here, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri(),
    pending.verifier,
    { ...options, additionalParameters: { resource: settings.resource } },
  );
  keep(pending, await oauth.processAuthorizationCodeResponse(as, client, response));
  return true;
}

function keep(from: { issuer: string; clientId: string }, result: oauth.TokenEndpointResponse) {
  const previous = read<Tokens>(TOKENS);
  const tokens: Tokens = {
    issuer: from.issuer,
    clientId: from.clientId,
    accessToken: result.access_token,
    // A server that does not rotate keeps the refresh token it gave.
    refreshToken: result.refresh_token ?? previous?.refreshToken ?? null,
    expiresAt: Date.now() + (result.expires_in ?? 300) * 1000,
  };
  sessionStorage.setItem(TOKENS, JSON.stringify(tokens));
}

export const signedInWithOAuth = () => read<Tokens>(TOKENS) !== null;

/**
 * The access token to send now, refreshed first when it is about to expire; null when there is
 * none any more (never signed in, or the refresh was refused: the session has ended).
 */
export async function currentAccessToken(settings: SignInSettings): Promise<string | null> {
  const tokens = read<Tokens>(TOKENS);
  if (!tokens) return null;
  if (tokens.expiresAt - Date.now() > REFRESH_MARGIN_MS) return tokens.accessToken;
  if (!tokens.refreshToken) return tokens.expiresAt > Date.now() ? tokens.accessToken : null;
  try {
    const { as, options } = await serverOf(tokens.issuer);
    const client: oauth.Client = { client_id: tokens.clientId };
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refreshToken,
      { ...options, additionalParameters: { resource: settings.resource } },
    );
    keep(tokens, await oauth.processRefreshTokenResponse(as, client, response));
    return read<Tokens>(TOKENS)?.accessToken ?? null;
  } catch {
    sessionStorage.removeItem(TOKENS);
    return null;
  }
}

/** What the page asks the server to add when it comes back from a sign-out. */
export const SIGNED_OUT_STATE = 'signed-out';

/**
 * Signs out: the tokens are forgotten here and revoked at the authorization server (which ends
 * them at once, DESIGN §4.16). With `endServerSession` (the person pressed Sign out), also where to
 * send the browser so the server ends its own sign-in in this browser (RP-initiated logout), when
 * the server offers it: otherwise the next Sign in would go straight through without a key.
 */
export async function endOAuthSession(endServerSession = false): Promise<string | null> {
  const tokens = read<Tokens>(TOKENS);
  sessionStorage.removeItem(TOKENS);
  if (!tokens) return null;
  try {
    const { as, options } = await serverOf(tokens.issuer);
    const client: oauth.Client = { client_id: tokens.clientId };
    if (as.revocation_endpoint)
      for (const token of [tokens.refreshToken, tokens.accessToken]) {
        if (!token) continue;
        await oauth.processRevocationResponse(
          await oauth.revocationRequest(as, client, oauth.None(), token, options),
        );
      }
    if (!endServerSession || typeof as.end_session_endpoint !== 'string') return null;
    const end = new URL(as.end_session_endpoint);
    end.searchParams.set('client_id', tokens.clientId);
    end.searchParams.set('post_logout_redirect_uri', redirectUri());
    end.searchParams.set('state', SIGNED_OUT_STATE);
    return end.href;
  } catch {
    // Signed out here whatever the server says; an unrevoked access token expires on its own.
    return null;
  }
}
