import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { StreamableHTTPClientTransport, ProtocolError } from '@modelcontextprotocol/client';
import { assertError, UUID_V4 } from '../support/assertions.js';
import { startHarness, type Answer, type Harness, DIALECTS } from '../support/harness.js';
import { newClient } from '../support/mcp-client.js';

const ACCEPT = 'application/json, text/event-stream';
const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
});

/** A POST /mcp over the network, as any client sends it (node:http: fetch cannot set Host). */
function mcpPost(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${base}/mcp`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      },
      (response) => {
        let raw = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (raw += chunk));
        response.on('end', () => {
          let parsed: unknown = raw;
          try {
            parsed = JSON.parse(raw);
          } catch {
            // left as text
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: parsed,
            raw,
          });
        });
      },
    );
    request.once('error', reject);
    request.end(payload);
  });
}

function assertRequestId(answer: Answer) {
  assert.match(String(answer.headers['x-request-id']), UUID_V4, answer.raw);
}

function assertJsonRpcError(answer: Answer, status: number, code: number) {
  assert.equal(answer.status, status, answer.raw);
  assertRequestId(answer);
  assert.equal(answer.body.jsonrpc, '2.0');
  assert.equal(answer.body.id, null);
  assert.equal(answer.body.error.code, code);
  assert.equal(typeof answer.body.error.message, 'string');
}

for (const dialect of DIALECTS) {
  describe(`/mcp answers every request in a documented shape (${dialect})`, () => {
    let h: Harness;
    let base: string;
    let auth: Record<string, string>;
    before(async () => {
      h = await startHarness({ dialect, quotaPerMinute: 0 });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
      auth = { authorization: `Bearer ${h.tokens.staff}` };
    });
    after(() => h.close());

    it('carries x-request-id on a successful answer written by the MCP transport', async () => {
      const answer = await mcpPost(base, initialize(), auth);
      assert.equal(answer.status, 200, answer.raw);
      assertRequestId(answer);
      assert.equal(answer.body.result.serverInfo.name, 'vms-read');
    });

    it('refuses a JSON-RPC batch with HTTP 400 and -32600, running none of it', async () => {
      const id = (await h.one<{ id: string }>('SELECT id FROM invoices LIMIT 1')).id;
      const batch = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'get_invoice', arguments: { id } },
      }));
      const answer = await mcpPost(base, batch, auth);
      assertJsonRpcError(answer, 400, -32600);
      assert.ok(answer.raw.length < 500, 'no results in the answer');
      assertJsonRpcError(await mcpPost(base, [initialize()], auth), 400, -32600);
      assertJsonRpcError(await mcpPost(base, [], auth), 400, -32600);
    });

    // JSON.parse keeps a "__proto__" member as data; the body parser refuses it (secure-json-parse),
    // and /mcp must still tell that valid JSON from text that is not JSON (found by the fuzzer).
    for (const [what, body] of [
      [
        'a batch with a __proto__ member',
        '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_timesheet","arguments":{"id":"a","__proto__":1}}}]',
      ],
      [
        'a message with a __proto__ member',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_timesheet","arguments":{"id":"a","__proto__":{}}}}',
      ],
      [
        'a message with a constructor.prototype member',
        '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"constructor":{"prototype":{}}}}',
      ],
    ]) {
      it(`answers ${what} with HTTP 400 and -32600, not as a parse error`, async () => {
        assertJsonRpcError(await mcpPost(base, body, auth), 400, -32600);
      });
    }

    for (const [what, body] of [
      ['malformed JSON', '{"jsonrpc": "2.0", "id": 1,'],
      ['an empty body', ''],
    ]) {
      it(`answers ${what} with HTTP 400 and -32700`, async () => {
        assertJsonRpcError(await mcpPost(base, body, auth), 400, -32700);
      });
    }

    // Valid JSON that is no JSON-RPC message is an Invalid Request, on every era's path alike
    // (docs/mcp.md "Malformed requests"; the 2025 SDK transport called it a parse error).
    it('answers a JSON value that is not a message with HTTP 400 and -32600', async () => {
      assertJsonRpcError(await mcpPost(base, '42', auth), 400, -32600);
    });

    it('answers a body that is not JSON with 415 and a JSON-RPC error', async () => {
      assertJsonRpcError(
        await mcpPost(base, 'hello', { ...auth, 'content-type': 'text/plain' }),
        415,
        -32000,
      );
    });

    it('answers HTTP-level refusals in the REST error shape with x-request-id', async () => {
      assertError(await mcpPost(base, initialize()), 401, 'unauthorized');
      assertError(
        await mcpPost(base, initialize(), { ...auth, origin: 'http://evil.example' }),
        403,
        'forbidden',
      );
      const get = await fetch(`${base}/mcp`, { headers: auth });
      assert.equal(get.status, 405);
      assert.match(String(get.headers.get('x-request-id')), UUID_V4);
    });

    it('answers an unknown tool with -32602 in fixed words, never echoing the name', async () => {
      const client = newClient();
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: auth },
        }),
      );
      try {
        const name = `ZQmarker${'x'.repeat(5000)}`;
        const error = await client.callTool({ name, arguments: {} }).then(
          () => assert.fail('expected an error'),
          (e: unknown) => e as ProtocolError,
        );
        assert.ok(error instanceof ProtocolError);
        assert.equal(error.code, -32602);
        // The server's own words, as sent (SDK v2's client no longer prefixes "MCP error <code>: ").
        assert.equal(error.message, 'Unknown tool: call tools/list for the tool names.');
        assert.ok(!error.message.includes('ZQmarker'));
      } finally {
        await client.close();
      }
    });

    for (const [what, params] of [
      ['a tools/call without a name', { arguments: {} }],
      ['a tools/call with a numeric name', { name: 7 }],
      ['a tools/call with array arguments', { name: 'list_workers', arguments: ['ZQmarker'] }],
      [
        'a tools/call with a malformed _meta',
        { name: 'list_workers', _meta: { progressToken: { ZQmarker: 1 } } },
      ],
    ] as const) {
      it(`answers ${what} with a JSON-RPC error that does not echo its input`, async () => {
        const answer = await mcpPost(
          base,
          { jsonrpc: '2.0', id: 9, method: 'tools/call', params },
          auth,
        );
        // The SDK's transport refuses some shapes itself (HTTP 400), the server the rest (200).
        assert.ok([200, 400].includes(answer.status), answer.raw);
        assertRequestId(answer);
        assert.ok(answer.body.error, answer.raw);
        assert.ok(!answer.raw.includes('ZQmarker'), answer.raw);
        assert.equal(answer.body.error.data, undefined);
      });
    }

    it('answers an unsupported MCP-Protocol-Version with 400 -32000, without echoing it', async () => {
      for (const body of [initialize(), { jsonrpc: '2.0', id: 5, method: 'ping' }]) {
        const answer = await mcpPost(base, body, { ...auth, 'mcp-protocol-version': 'ZQmarker' });
        assertJsonRpcError(answer, 400, -32000);
        assert.ok(!answer.raw.includes('ZQmarker'), answer.raw);
      }
      const supported = await mcpPost(
        base,
        { jsonrpc: '2.0', id: 6, method: 'ping' },
        {
          ...auth,
          'mcp-protocol-version': '2025-06-18',
        },
      );
      assert.equal(supported.status, 200, supported.raw);
    });

    it('answers an initialize with malformed params without echoing them', async () => {
      const answer = await mcpPost(
        base,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'initialize',
          params: { protocolVersion: { ZQmarker: 1 } },
        },
        auth,
      );
      assertRequestId(answer);
      assert.ok(answer.body.error, answer.raw);
      assert.ok(!answer.raw.includes('ZQmarker'), answer.raw);
    });
  });

  describe(`/mcp counts every authenticated request against the quota (${dialect})`, () => {
    let h: Harness;
    let base: string;
    before(async () => {
      h = await startHarness({ dialect, quotaPerMinute: 3 });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    it('counts initialize, tools/list and ping, then answers 429 with Retry-After', async () => {
      const auth = { authorization: `Bearer ${h.tokens.staff}` };
      for (const body of [
        initialize(),
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ])
        assert.equal((await mcpPost(base, body, auth)).status, 200);
      const spent = await mcpPost(base, { jsonrpc: '2.0', id: 4, method: 'ping' }, auth);
      assertError(spent, 429, 'rate_limited');
      assert.match(String(spent.headers['retry-after']), /^[1-9]\d*$/);
    });
  });
}

describe('/mcp refuses DNS rebinding: Host and Origin are checked against configuration', () => {
  let h: Harness;
  let base: string;
  let port: number;
  let auth: Record<string, string>;
  before(async () => {
    h = await startHarness({
      origins: {
        publicUrl: 'https://vms.example.com',
        allowedOrigins: ['https://app.example.net'],
      },
    });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(base).port);
    auth = { authorization: `Bearer ${h.tokens.staff}` };
  });
  after(() => h.close());

  it('refuses a foreign Host on a loopback address, before asking for a token', async () => {
    for (const headers of [
      { ...auth, host: 'evil.example.com' },
      { host: `evil.example.com:${port}` },
    ]) {
      const answer = await mcpPost(base, initialize(), headers);
      assertError(answer, 403, 'forbidden');
      assert.match(answer.body.error.message, /origin|host/i);
      assert.doesNotMatch(answer.body.error.message, /role|token/i);
    }
  });

  it('refuses an Origin that is only the Host echoed back (the rebound page)', async () => {
    const answer = await mcpPost(base, initialize(), {
      ...auth,
      host: `localhost:${port}`,
      origin: `http://rebound.example:${port}`,
    });
    assertError(answer, 403, 'forbidden');
  });

  for (const [what, headers] of [
    [
      "a loopback Host and the server's own origin",
      () => ({ host: `localhost:${port}`, origin: `http://localhost:${port}` }),
    ],
    [
      '127.0.0.1 as Host and origin',
      () => ({ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }),
    ],
    [
      "the public URL's host and origin",
      () => ({ host: 'vms.example.com', origin: 'https://vms.example.com' }),
    ],
    ['an allowed origin', () => ({ origin: 'https://app.example.net' })],
    ['no Origin at all (not a browser)', () => ({})],
  ] as const) {
    it(`accepts ${what}`, async () => {
      const answer = await mcpPost(base, initialize(), { ...auth, ...headers() });
      assert.equal(answer.status, 200, answer.raw);
    });
  }

  it('names the configured public URL in the resource metadata', async () => {
    const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.equal(metadata.resource, 'https://vms.example.com/mcp');
    const api = await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json();
    assert.equal(api.resource, 'https://vms.example.com');
  });
});
