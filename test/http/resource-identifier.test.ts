/**
 * Which resource, which authorization server, and why a token was refused (DESIGN §4.16):
 * without VMS_READ_PUBLIC_URL the origin a loopback request names (`localhost` or `127.0.0.1`) is
 * the resource identifier, so an MCP host given either finds its own URL in the metadata and
 * signs in; the authorization server named first is the operator's choice (the organisation's
 * for people when one is configured); a refused token's reason is logged at debug level, never
 * the token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';
import { TestIdentityProvider } from '../support/identity-provider.js';
import {
  connectSignedIn,
  personWith,
  TestBrowser,
  TestOAuthHost,
} from '../support/oauth-browser.js';

for (const dialect of DIALECTS)
  describe(`a loopback server under its two names (${dialect})`, () => {
    let h: Harness;
    let port = 0;
    before(async () => {
      h = await startHarness({ dialect, oauthServer: true });
      port = Number(new URL(await h.app.listen({ host: '127.0.0.1', port: 0 })).port);
    });
    after(() => h.close());

    it('names the origin each request names as the resource', async () => {
      for (const name of ['localhost', '127.0.0.1']) {
        const origin = `http://${name}:${port}`;
        const metadata = (await (
          await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)
        ).json()) as { resource: string; authorization_servers: string[] };
        assert.equal(metadata.resource, `${origin}/mcp`);
        const challenge = await fetch(`${origin}/mcp`, { method: 'POST' });
        assert.equal(challenge.status, 401);
        assert.match(
          challenge.headers.get('www-authenticate') ?? '',
          new RegExp(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`),
        );
      }
    });

    it('lets an MCP host given http://localhost:<port>/mcp sign in and call tools', async () => {
      const host = new TestOAuthHost(new TestBrowser(personWith({ key: h.tokens.staff })));
      const client = await connectSignedIn(new URL(`http://localhost:${port}/mcp`), host);
      try {
        const result = (await client.callTool({
          name: 'list_workers',
          arguments: { limit: 1 },
        })) as CallToolResult;
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
      } finally {
        await client.close();
      }
    });
  });

describe('the authorization server MCP hosts are sent to, and refused tokens in the log', () => {
  let idp: TestIdentityProvider;
  let base = '';
  const harnesses: Harness[] = [];
  before(async () => {
    idp = await TestIdentityProvider.start({
      resources: () => [base, `${base}/mcp`],
      claims: () => ({ vms_workspace: WS, vms_role: 'staff' }),
    });
  });
  after(async () => {
    for (const h of harnesses) await h.close();
    await idp.close();
  });
  const serversOf = async (options: Parameters<typeof startHarness>[0]) => {
    const h = await startHarness({ oauthServer: true, oauthIssuers: [idp.entry], ...options });
    harnesses.push(h);
    const answer = await h.app.inject({ url: '/.well-known/oauth-protected-resource' });
    return { h, servers: answer.json().authorization_servers as string[] };
  };

  it('names the built-in server first by default', async () => {
    const { servers } = await serversOf({});
    assert.deepEqual(servers, ['http://localhost', idp.issuer]);
  });
  it("names the organisation's first when the page signs people in there", async () => {
    const { servers } = await serversOf({
      webSignIn: { issuer: idp.issuer, clientId: 'vms-read-web' },
    });
    assert.deepEqual(servers, [idp.issuer, 'http://localhost']);
  });
  it('names the one VMS_READ_PREFERRED_ISSUER says first', async () => {
    const { servers } = await serversOf({
      preferredIssuer: 'built-in',
      webSignIn: { issuer: idp.issuer, clientId: 'vms-read-web' },
    });
    assert.deepEqual(servers, ['http://localhost', idp.issuer]);
    const external = await serversOf({ preferredIssuer: idp.issuer });
    assert.deepEqual(external.servers, [idp.issuer, 'http://localhost']);
  });

  it('logs why a token was refused at debug level: its audience beside the accepted ones', async () => {
    const lines: { msg?: string; reason?: string; level?: number }[] = [];
    const h = await startHarness({
      oauthIssuers: [idp.entry],
      logger: { level: 'debug', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    });
    harnesses.push(h);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const token = await idp.sign({ sub: 'person-1', aud: `${base}/`, scope: 'read:workforce' });
    const answer = await fetch(`${base}/api/v1/workers`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(answer.status, 401);
    const refused = lines.find((line) => line.msg === 'token refused');
    assert.ok(refused, JSON.stringify(lines));
    assert.match(refused.reason ?? '', /aud/);
    assert.ok(refused.reason?.includes(`"${base}/"`), refused.reason);
    assert.ok(refused.reason?.includes(`"${base}"`), refused.reason);
    for (const line of lines) assert.ok(!JSON.stringify(line).includes(token), 'never the token');
  });
});
