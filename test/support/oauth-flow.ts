import { createHash, randomBytes } from 'node:crypto';
import { TestBrowser, type PageAnswer } from './oauth-browser.js';

/** A public client registered at an authorization server, by RFC 7591. */
export interface RegisteredClient {
  client_id: string;
  redirect_uris: string[];
}

export const CALLBACK = 'http://127.0.0.1:1/callback';

export async function registerClient(
  base: string,
  metadata: Record<string, unknown> = {},
): Promise<RegisteredClient> {
  const response = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'A test app',
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...metadata,
    }),
  });
  if (response.status !== 201) throw new Error(`registration: ${await response.text()}`);
  return (await response.json()) as RegisteredClient;
}

/** A PKCE pair (RFC 7636, S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizationRequest {
  client: RegisteredClient;
  scope?: string;
  resource?: string;
  /** Parameters to add, or to drop (undefined), from the well-formed request. */
  params?: Record<string, string | undefined>;
}

/**
 * An authorization request as a client sends the person's browser, well formed unless `params`
 * says otherwise: code, PKCE S256, state, the resource. Returns where the browser ended (the
 * client's callback with its parameters, or a page it stopped on) and the PKCE verifier.
 */
export async function authorize(
  base: string,
  browser: TestBrowser,
  {
    client,
    scope = 'read:workforce offline_access',
    resource = base,
    params = {},
  }: AuthorizationRequest,
) {
  const { verifier, challenge } = pkce();
  const query: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    scope,
    state: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    // OpenID Connect: offline_access counts only with prompt=consent (MCP clients send both).
    ...(scope.split(' ').includes('offline_access') ? { prompt: 'consent' } : {}),
    ...params,
  };
  const url = new URL(`${base}/oauth/authorize`);
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) url.searchParams.set(name, value);
  const ended = await browser.browse(url, client.redirect_uris[0]);
  return { ...ended, verifier, state: query.state };
}

/** A token request at the token endpoint (form-encoded, a public client): the parsed answer. */
export async function tokenRequest(base: string, fields: Record<string, string>) {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** The whole flow for `person`: registered, signed in, allowed, code exchanged; the tokens. */
export async function signIn(
  base: string,
  person: PageAnswer,
  request: Partial<AuthorizationRequest> = {},
) {
  const client = request.client ?? (await registerClient(base));
  const { callback, page, verifier } = await authorize(base, new TestBrowser(person), {
    ...request,
    client,
  });
  const code = callback?.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback ?? page?.html}`);
  const tokens = await tokenRequest(base, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirect_uris[0],
    client_id: client.client_id,
    code_verifier: verifier,
  });
  if (tokens.status !== 200) throw new Error(`token: ${JSON.stringify(tokens.body)}`);
  return { client, tokens: tokens.body, code, verifier };
}

/** A refresh at the token endpoint, for a public client. */
export function refreshRequest(base: string, client: RegisteredClient, refreshToken: string) {
  return tokenRequest(base, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.client_id,
  });
}

/** RFC 7009 revocation of `token` by a public client: the HTTP status. */
export async function revokeRequest(base: string, token: string, clientId: string) {
  const response = await fetch(`${base}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: clientId }),
  });
  await response.arrayBuffer();
  return response.status;
}
