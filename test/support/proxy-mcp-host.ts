/**
 * An MCP host in a process of its own, as Claude or ChatGPT is: given only the server's public
 * `https` URL (argv[2]) and a person's access key (argv[3]), it trusts the certificate authority
 * NODE_EXTRA_CA_CERTS names (Node reads it at start, hence the process), registers itself,
 * signs the person in through the server's pages, lists the tools and calls one, with the MCP SDK
 * v2's client. Prints what it found as one JSON line (test/http/behind-proxy.test.ts).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { connectSignedIn, personWith, TestBrowser, TestOAuthHost } from './oauth-browser.js';

const [url, key] = process.argv.slice(2);
const host = new TestOAuthHost(new TestBrowser(personWith({ key })));
const client = await connectSignedIn(new URL(url), host);
try {
  const tools = await client.listTools();
  const workers = (await client.callTool({
    name: 'list_workers',
    arguments: { limit: 2 },
  })) as CallToolResult;
  const discovery = host.discoveryState();
  console.log(
    JSON.stringify({
      tools: tools.tools.length,
      isError: workers.isError ?? false,
      items: (workers.structuredContent as { items?: unknown[] } | undefined)?.items?.length,
      resource: discovery?.resourceMetadata?.resource,
      authorizationServer: discovery?.authorizationServerUrl,
      issuer: discovery?.authorizationServerMetadata?.issuer,
      clientId: host.clientInformation()?.client_id,
    }),
  );
} finally {
  await client.close();
}
