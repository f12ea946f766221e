/**
 * Client ID metadata documents (DESIGN §4.12; the MCP revisions 2025-11-25 and 2026-07-28 prefer
 * them to registration): an MCP host whose `client_id` is the https URL of its metadata document
 * signs a person in without registering. The document is served by a real server on loopback;
 * the authorization server reaches it through a fetch that maps the document's host there (in
 * production oidc-provider fetches public https addresses only).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { DIALECTS, startHarness, type Harness } from '../support/harness.js';
import { assertEnvelope, newClient } from '../support/mcp-client.js';
import { personWith, TestBrowser, TestOAuthHost } from '../support/oauth-browser.js';

const DOCUMENT = 'https://app.example/vms-read/client.json';
const CALLBACK = 'http://127.0.0.1:1/callback';

for (const dialect of DIALECTS)
  describe(`an MCP host known by its client ID metadata document (${dialect})`, () => {
    let h: Harness;
    let documents: Server;
    let fetched = 0;
    before(async () => {
      documents = createServer((request, response) => {
        fetched++;
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            client_id: DOCUMENT,
            client_name: 'A metadata-document app',
            redirect_uris: [CALLBACK],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          }),
        );
        void request;
      });
      await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
      const at = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
      h = await startHarness({
        dialect,
        oauthServer: true,
        oauthFetch: (url, init) =>
          fetch(String(url).replace('https://app.example', at), {
            ...init,
            dispatcher: undefined,
          } as RequestInit),
      });
    });
    after(async () => {
      await h.close();
      await new Promise((resolve) => documents.close(resolve));
    });

    it('signs in without registering, and calls tools', async () => {
      const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
      const mcp = new URL(`${base}/mcp`);
      const host = new TestOAuthHost(
        new TestBrowser(personWith({ key: h.tokens.staff })),
        CALLBACK,
      );
      Object.defineProperty(host, 'clientMetadataUrl', { value: DOCUMENT });
      await assert.rejects(
        newClient().connect(new StreamableHTTPClientTransport(mcp, { authProvider: host })),
        UnauthorizedError,
      );
      assert.equal(host.clientInformation()?.client_id, DOCUMENT, 'the URL is the client id');
      const transport = new StreamableHTTPClientTransport(mcp, { authProvider: host });
      await transport.finishAuth(host.takeCallback());
      assert.ok(fetched >= 1, 'the server read the document');
      const client = newClient();
      await client.connect(transport);
      try {
        const data = assertEnvelope(
          (await client.callTool({
            name: 'list_workers',
            arguments: { limit: 1 },
          })) as CallToolResult,
        );
        assert.equal((data.items as unknown[]).length, 1);
      } finally {
        await client.close();
      }
    });
  });
