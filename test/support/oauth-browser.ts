import type {
  OAuthDiscoveryState,
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * A person's browser, as far as an authorization flow needs one: it follows the redirects of an
 * authorization request (keeping the cookies each site sets) through the identity provider's
 * sign-in and consent pages, and stops where the provider sends it back to the client's redirect
 * URI, returning that URL (code, state, iss). Pages that need a click are the provider's own
 * business (test/support/identity-provider.ts answers them as a person would).
 */
export class TestBrowser {
  private readonly cookies = new Map<string, string>();

  async authorize(start: URL, redirectUri: string): Promise<URL> {
    let next = start;
    for (let hop = 0; hop < 20; hop++) {
      const response = await fetch(next, {
        redirect: 'manual',
        headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (!location)
        throw new Error(`no redirect from ${next}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      const target = new URL(location, next);
      if (target.href.startsWith(redirectUri)) return target;
      next = target;
    }
    throw new Error('too many redirects');
  }
}

/**
 * An MCP host's OAuth client (the SDK's `OAuthClientProvider`), kept in memory: it registers
 * itself dynamically, keeps its tokens, and sends the person's browser to the authorization
 * server; `callback` is where the browser came back (pass its search params to finishAuth).
 */
export class TestOAuthHost implements OAuthClientProvider {
  callback: URL | null = null;
  private information: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;

  constructor(
    private readonly browser: TestBrowser,
    readonly redirectUri = 'http://127.0.0.1:1/callback',
  ) {}

  get redirectUrl(): string {
    return this.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'vms-read tests',
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.callback = await this.browser.authorize(url, this.redirectUri);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  /** Where the browser came back, once, as finishAuth takes it. */
  takeCallback(): URLSearchParams {
    const callback = this.callback;
    if (!callback) throw new Error('the browser did not come back');
    this.callback = null;
    return callback.searchParams;
  }
}
