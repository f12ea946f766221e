import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  OAuthDiscoveryState,
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/** What a person does on a page that asks something: the form to send, or null to stop there. */
export type PageAnswer = (page: { url: URL; status: number; html: string }) => {
  action: URL;
  fields: Record<string, string>;
} | null;

/** Where the browser stopped: back at the client (`callback`), or on a page it would not answer. */
export interface BrowsedTo {
  callback: URL | null;
  page: { url: URL; status: number; html: string } | null;
}

/**
 * A person's browser, as far as an authorization flow needs one: it follows the redirects of an
 * authorization request (keeping the cookies each site sets) through the sign-in and consent
 * pages, filling them in as `answer` says (an identity provider that needs no click is answered
 * by the provider itself), and stops where it is sent back to the client's redirect URI.
 */
export class TestBrowser {
  constructor(
    private readonly answer: PageAnswer = () => null,
    private readonly cookies = new Map<string, string>(),
  ) {}

  /** The same browser (its cookies) with a person who answers pages otherwise. */
  answering(answer: PageAnswer): TestBrowser {
    return new TestBrowser(answer, this.cookies);
  }

  async authorize(start: URL, redirectUri: string): Promise<URL> {
    const { callback, page } = await this.browse(start, redirectUri);
    if (!callback) throw new Error(`stopped on ${page?.url}: ${page?.status} ${page?.html}`);
    return callback;
  }

  async browse(start: URL, redirectUri: string): Promise<BrowsedTo> {
    let next: { url: URL; form?: Record<string, string> } = { url: start };
    for (let hop = 0; hop < 20; hop++) {
      const response = await fetch(next.url, {
        redirect: 'manual',
        method: next.form ? 'POST' : 'GET',
        headers: {
          cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(next.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: next.form ? new URLSearchParams(next.form) : undefined,
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        const name = pair.slice(0, at).trim();
        // A cookie set empty, or expired, is one the site removed.
        if (pair.slice(at + 1) === '' || /expires=Thu, 01 Jan 1970/i.test(line))
          this.cookies.delete(name);
        else this.cookies.set(name, pair.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (!location) {
        const page = { url: next.url, status: response.status, html: await response.text() };
        const reply = this.answer(page);
        if (!reply) return { callback: null, page };
        next = { url: reply.action, form: reply.fields };
        continue;
      }
      await response.arrayBuffer();
      const target = new URL(location, next.url);
      if (target.href.startsWith(redirectUri)) return { callback: target, page: null };
      next = { url: target };
    }
    throw new Error('too many redirects');
  }
}

/**
 * A person at vms-read's own sign-in and consent pages: enters `key` (or picks the demo account
 * `demo`), then allows (or denies) the app.
 */
export function personWith(
  sign: { key: string } | { demo: string },
  decision: 'allow' | 'deny' = 'allow',
): PageAnswer {
  return ({ url, status, html }): ReturnType<PageAnswer> => {
    if (status !== 200) return null;
    const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
    if (!action) return null;
    const target = new URL(action.replaceAll('&amp;', '&'), url);
    if (html.includes('name="key"')) {
      if ('key' in sign)
        return { action: target, fields: { key: sign.key } as Record<string, string> };
      const demoAction = new RegExp(
        `<form method="post" action="([^"]+)">\\s*<input type="hidden" name="demo" value="${sign.demo}">`,
      ).exec(html)?.[1];
      return demoAction ? { action: new URL(demoAction, url), fields: { demo: sign.demo } } : null;
    }
    if (html.includes('name="decision"')) return { action: target, fields: { decision } };
    return null;
  };
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

/**
 * An MCP host's first connection to `mcp` as the SDK makes it: refused (401), the person sent
 * through sign-in by `host`'s browser, then connected with the tokens. The caller closes it.
 */
export async function connectSignedIn(mcp: URL, host: TestOAuthHost): Promise<Client> {
  const first = new Client({ name: 'host', version: '1.0.0' });
  await first.connect(new StreamableHTTPClientTransport(mcp, { authProvider: host })).then(
    () => {
      throw new Error('connected without signing in');
    },
    () => undefined,
  );
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: host });
  await transport.finishAuth(host.takeCallback());
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
