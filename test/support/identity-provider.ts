import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { DEFAULT_CLAIMS, type OAuthIssuer } from '../../src/oauth-issuers.js';

/** SPEC's four scopes, as the identity provider offers them for vms-read. */
export const VMS_SCOPES = ['read:program', 'read:financial', 'read:workforce', 'read:pii'];

type TokenAlgorithm = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';

/** A confidential client of the identity provider that takes client credentials (a script). */
export interface ScriptClient {
  clientId: string;
  secret: string;
}

export interface IdentityProviderOptions {
  /** The resource identifiers tokens may be issued for (vms-read's URL, and it with /mcp). */
  resources: () => string[];
  /** The extra claims a token carries, by its subject (an account, or a client for client credentials). */
  claims: (subject: string) => Record<string, unknown>;
  /** Confidential clients that take client credentials. */
  scripts?: ScriptClient[];
  /** Public clients registered by an administrator (a web page): their ids and redirect URIs. */
  publicClients?: () => { clientId: string; redirectUris: string[] }[];
  /** The access token's JWS algorithm; default ES256. */
  alg?: TokenAlgorithm;
  /** Lifetime of access tokens, in seconds (default 600). */
  accessTokenTtl?: number;
}

/**
 * An identity provider for the tests, playing Okta or Keycloak: the certified `oidc-provider`,
 * started on a free loopback port, issuing real JWT access tokens (RFC 9068) for vms-read through
 * its own flows: client credentials for scripts, and the authorization code flow with PKCE (and
 * dynamic client registration) for MCP hosts. A person's sign-in and consent are done by
 * `signInAs`: the interaction pages of this provider log in that account and grant what was asked.
 * Its own keys can also sign tokens the tests shape (`sign`), as a misconfigured or hostile issuer
 * would; its key set endpoint counts its fetches.
 */
export class TestIdentityProvider {
  issuer = '';
  /** Requests to the key set endpoint (`/jwks`) and to discovery documents. */
  jwksFetches = 0;
  discoveryFetches = 0;
  private account = 'person-1';
  private readonly server = createServer((req, res) => this.route(req, res));
  private provider!: Provider;
  private signingKey!: CryptoKey;
  private kid = '';
  /** The public and private keys the provider publishes and signs with, newest first. */
  private readonly keys: object[] = [];

  private constructor(private readonly options: IdentityProviderOptions) {}

  static async start(options: IdentityProviderOptions): Promise<TestIdentityProvider> {
    const idp = new TestIdentityProvider(options);
    await idp.listen();
    return idp;
  }

  /** This provider as VMS_READ_OAUTH_ISSUERS lists it, with the default claim names. */
  get entry(): OAuthIssuer {
    return { issuer: this.issuer, claims: { ...DEFAULT_CLAIMS } };
  }

  /** The account the next sign-in logs in as. */
  signInAs(account: string): void {
    this.account = account;
  }

  private async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.issuer = `http://127.0.0.1:${port}`;
    await this.rotateKey();
  }

  /**
   * A new signing key, published first in the key set beside the older ones (a key rotation as
   * identity providers do it): `sign` uses it from now on, under a new `kid`. The provider is made
   * again with the new set (its clients and grants are forgotten).
   */
  async rotateKey(): Promise<void> {
    const alg = this.options.alg ?? 'ES256';
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    this.signingKey = privateKey;
    this.kid = `test-key-${this.keys.length + 1}`;
    this.keys.unshift({ ...(await exportJWK(privateKey)), kid: this.kid, alg, use: 'sig' });
    this.reconfigure();
  }

  /** Makes the provider again from the options as they are now (its public clients, say). */
  reconfigure(): void {
    this.provider = new Provider(this.issuer, this.configuration(this.options.alg ?? 'ES256'));
    // Loopback, plain http: the provider is told it is not behind a proxy and needs no TLS.
    this.provider.proxy = false;
  }

  private configuration(alg: TokenAlgorithm): Configuration {
    const { resources, claims, scripts = [] } = this.options;
    const ttl = this.options.accessTokenTtl ?? 600;
    return {
      jwks: { keys: [...this.keys] as never[] },
      clientDefaults: { id_token_signed_response_alg: alg },
      clients: [
        ...scripts.map(({ clientId, secret }) => ({
          client_id: clientId,
          client_secret: secret,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
        })),
        ...(this.options.publicClients?.() ?? []).map(({ clientId, redirectUris }) => ({
          client_id: clientId,
          token_endpoint_auth_method: 'none' as const,
          grant_types: ['authorization_code', 'refresh_token'],
          redirect_uris: redirectUris,
          response_types: ['code' as const],
        })),
      ],
      scopes: ['openid', 'offline_access', ...VMS_SCOPES],
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        registration: { enabled: true },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: async () => resources()[0],
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx, indicator) => {
            if (!resources().includes(indicator)) throw new errors.InvalidTarget();
            return {
              scope: VMS_SCOPES.join(' '),
              accessTokenFormat: 'jwt',
              accessTokenTTL: ttl,
              jwt: { sign: { alg } },
            };
          },
        },
      },
      extraTokenClaims: async (_ctx: KoaContextWithOIDC, token) => {
        const subject = 'accountId' in token && token.accountId ? token.accountId : token.clientId;
        return subject ? claims(String(subject)) : undefined;
      },
      findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
      interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
      ttl: {
        AccessToken: ttl,
        ClientCredentials: ttl,
        AuthorizationCode: 60,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
        RefreshToken: 3600,
      },
    };
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/jwks') this.jwksFetches++;
    if (path.includes('/.well-known/')) this.discoveryFetches++;
    if (path.startsWith('/interaction/')) {
      this.interact(req, res).catch((error: Error) => {
        res.statusCode = 500;
        res.end(error.message);
      });
      return;
    }
    void this.provider.callback()(req, res);
  }

  /** The person at the provider: signs in as the chosen account, and allows what was asked. */
  private async interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await this.provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    if (prompt.name === 'login') {
      await this.provider.interactionFinished(
        req,
        res,
        { login: { accountId: this.account } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = details.grantId
      ? await this.provider.Grant.find(details.grantId)
      : new this.provider.Grant({
          accountId: session?.accountId,
          clientId: String(params.client_id),
        });
    if (!grant) throw new Error('grant not found');
    const missing = prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await this.provider.interactionFinished(
      req,
      res,
      { consent: details.grantId ? {} : { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  /** A token by client credentials, from the token endpoint, as a script gets one. */
  async clientCredentials(
    client: ScriptClient,
    { scope, resource }: { scope: string; resource: string },
  ): Promise<string> {
    const response = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
    });
    const body = (await response.json()) as { access_token?: string; error?: string };
    if (!body.access_token) throw new Error(`token endpoint: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  /**
   * A token signed with this provider's own key, shaped by the test: `iss` this issuer, `exp` in
   * ten minutes and `typ` at+jwt unless the claims or header say otherwise.
   */
  async sign(
    claims: JWTPayload & Record<string, unknown>,
    header: { typ?: string; kid?: string; alg?: string } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.issuer, iat: now, exp: now + 600, ...claims })
      .setProtectedHeader({
        alg: this.options.alg ?? 'ES256',
        typ: 'at+jwt',
        kid: this.kid,
        ...header,
      })
      .sign(this.signingKey);
  }

  /** The provider's public key set, as /jwks serves it (without counting a fetch). */
  async publicJwks(): Promise<{ keys: Record<string, unknown>[] }> {
    const response = await fetch(`${this.issuer}/jwks`);
    this.jwksFetches--;
    return (await response.json()) as { keys: Record<string, unknown>[] };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
