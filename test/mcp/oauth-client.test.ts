/**
 * Issue 31, "done when": an MCP client of the SDK v2 with an OAuth provider, pointed at vms-read
 * with an external issuer configured, finds the issuer from the 401 and the resource metadata,
 * signs a person in there (authorization code with PKCE, after registering itself), lists the
 * tools and calls them; a script does the same with client credentials. A call that needs a scope
 * the token lacks is an HTTP 403 (step-up, in both eras), after which the SDK asks for the scope
 * and calls again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  auth,
  Client,
  discoverAuthorizationServerMetadata,
  registerClient,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { DIALECTS, startHarness, WS, type Harness } from '../support/harness.js';
import {
  TestIdentityProvider,
  VMS_SCOPES,
  type ScriptClient,
} from '../support/identity-provider.js';
import { assertEnvelope, newClient, rawToolCall } from '../support/mcp-client.js';
import { TestBrowser, TestOAuthHost } from '../support/oauth-browser.js';
import { OPERATIONS } from '../../src/operations/registry.js';

const SCRIPT: ScriptClient = {
  clientId: 'nightly-export',
  secret: 'a-long-enough-client-secret-0002',
};

/** A client pinned to the stateless revision (no initialize). */
const modernClient = () =>
  new Client(
    { name: 'vms-read-tests', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );

for (const dialect of DIALECTS) {
  describe(`an MCP host signs in through an external issuer (${dialect})`, () => {
    let h: Harness;
    let idp: TestIdentityProvider;
    let base = '';
    let mcp: URL;
    before(async () => {
      idp = await TestIdentityProvider.start({
        resources: () => [base, `${base}/mcp`],
        claims: (subject) =>
          subject === 'person-1' || subject === SCRIPT.clientId
            ? { vms_workspace: WS, vms_role: 'staff' }
            : {},
        scripts: [SCRIPT],
      });
      h = await startHarness({
        dialect,
        oauthIssuers: [idp.entry],
      });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
      mcp = new URL(`${base}/mcp`);
    });
    after(async () => {
      await h.close();
      await idp.close();
    });

    /** What an access key with every scope gets from list_workers: the answer to compare with. */
    async function keyAnswer() {
      const client = newClient();
      await client.connect(
        new StreamableHTTPClientTransport(mcp, {
          requestInit: { headers: { authorization: `Bearer ${h.tokens.staff}` } },
        }),
      );
      try {
        return assertEnvelope(
          (await client.callTool({
            name: 'list_workers',
            arguments: { limit: 3 },
          })) as CallToolResult,
        );
      } finally {
        await client.close();
      }
    }

    it('discovers the issuer from the 401, signs the person in, lists tools and calls them', async () => {
      idp.signInAs('person-1');
      const host = new TestOAuthHost(new TestBrowser());
      const first = newClient();
      await assert.rejects(
        first.connect(new StreamableHTTPClientTransport(mcp, { authProvider: host })),
        UnauthorizedError,
      );
      const transport = new StreamableHTTPClientTransport(mcp, { authProvider: host });
      await transport.finishAuth(host.takeCallback());
      const token = host.tokens()?.access_token ?? '';
      assert.equal(
        JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).iss,
        idp.issuer,
      );
      const client = newClient();
      await client.connect(transport);
      try {
        assert.equal((await client.listTools()).tools.length, OPERATIONS.length);
        const data = assertEnvelope(
          (await client.callTool({
            name: 'list_workers',
            arguments: { limit: 3 },
          })) as CallToolResult,
        );
        const expected = await keyAnswer();
        assert.deepEqual(data.items, expected.items);
        assert.equal(data.hasMore, expected.hasMore);
      } finally {
        await client.close();
      }
    });

    for (const [era, makeClient] of [
      ['2025 era', newClient],
      ['2026-07-28', modernClient],
    ] as const) {
      it(`${era}: a tool call that lacks a scope is a 403 step-up; the SDK asks for it and calls again`, async () => {
        idp.signInAs('person-1');
        const host = new TestOAuthHost(new TestBrowser());
        // The host registered once for every scope, then asked for fewer than invoices need.
        host.saveClientInformation({
          ...(await registerClient(idp.issuer, {
            metadata: await discoverAuthorizationServerMetadata(idp.issuer),
            clientMetadata: {
              ...host.clientMetadata,
              scope: ['offline_access', ...VMS_SCOPES].join(' '),
            },
          })),
          issuer: idp.issuer,
        });
        assert.equal(
          await auth(host, { serverUrl: mcp, scope: 'read:workforce read:program' }),
          'REDIRECT',
        );
        const callback = host.takeCallback();
        assert.equal(
          await auth(host, {
            serverUrl: mcp,
            authorizationCode: callback.get('code') ?? '',
            iss: callback.get('iss') ?? undefined,
          }),
          'AUTHORIZED',
        );
        assert.equal(host.tokens()?.scope, 'read:workforce read:program');
        const client = makeClient();
        await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: host }));
        try {
          assertEnvelope(
            (await client.callTool({
              name: 'list_workers',
              arguments: { limit: 1 },
            })) as CallToolResult,
          );
          await assert.rejects(
            client.callTool({ name: 'list_invoices', arguments: { limit: 1 } }),
            UnauthorizedError,
          );
          // The SDK re-authorized with the union of scopes: the browser came back with a code.
          const stepUp = new StreamableHTTPClientTransport(mcp, { authProvider: host });
          await stepUp.finishAuth(host.takeCallback());
          assert.deepEqual(host.tokens()?.scope?.split(' ').sort(), [
            'read:financial',
            'read:program',
            'read:workforce',
          ]);
          const retried = makeClient();
          await retried.connect(stepUp);
          try {
            const data = assertEnvelope(
              (await retried.callTool({
                name: 'list_invoices',
                arguments: { limit: 1 },
              })) as CallToolResult,
            );
            assert.equal((data.items as unknown[]).length, 1);
          } finally {
            await retried.close();
          }
        } finally {
          await client.close();
        }
      });
    }

    it('a 403 step-up carries the challenge on the raw exchange, not a tool result', async () => {
      const token = await idp.clientCredentials(SCRIPT, {
        scope: 'read:workforce',
        resource: `${base}/mcp`,
      });
      const response = await rawToolCall(base, token, 'list_invoices');
      assert.equal(response.status, 403);
      assert.equal(
        response.headers.get('www-authenticate'),
        `Bearer error="insufficient_scope", scope="read:workforce read:financial", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      );
      assert.equal((await response.json()).error.code, 'insufficient_scope');
    });

    it('a script with client credentials lists tools and reads a list', async () => {
      const provider = new ClientCredentialsProvider({
        clientId: SCRIPT.clientId,
        clientSecret: SCRIPT.secret,
        scope: 'read:workforce read:program',
        expectedIssuer: idp.issuer,
      });
      const client = newClient();
      await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
      try {
        assert.equal((await client.listTools()).tools.length, OPERATIONS.length);
        const data = assertEnvelope(
          (await client.callTool({
            name: 'list_suppliers',
            arguments: { limit: 2 },
          })) as CallToolResult,
        );
        assert.equal((data.items as unknown[]).length, 2);
      } finally {
        await client.close();
      }
    });
  });
}
