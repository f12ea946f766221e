/**
 * What every answer says about itself (issue 21, item 5): answers that carry records, reports or
 * errors are `Cache-Control: no-store` and every answer is `X-Content-Type-Options: nosniff`; an
 * HTTP/1.1 request without Host is a 400 in the error shape; nothing token-shaped reaches a log
 * line, whatever path a client sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../support/assertions.js';
import { get, post, startHarness, type Answer, type Harness } from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';

describe('answer headers, Host and logged paths', () => {
  let h: Harness;
  let port: number;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    h = await startHarness({
      logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = (h.app.server.address() as { port: number }).port;
  });
  after(() => h.close());

  const mcp = (token: string) =>
    post(
      h.app,
      '/mcp',
      token,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_workers', arguments: { limit: 1 } },
      },
      { accept: 'application/json, text/event-stream' },
    );
  const answers: [string, () => Promise<Answer>][] = [
    ['a list', () => get(h.app, '/api/v1/workers?limit=1', h.tokens.staff)],
    ['a get', () => get(h.app, '/api/v1/invoices/item?id=nothing', h.tokens.staff)],
    [
      'a report',
      () => post(h.app, '/api/v1/reports/query', h.tokens.staff, { query: { metrics: ['spend'] } }),
    ],
    ['the change feed', () => get(h.app, '/api/v1/changes?limit=1', h.tokens.staff)],
    ['an MCP tool call', () => mcp(h.tokens.staff)],
    ['a 401', () => get(h.app, '/api/v1/workers')],
    ['a 403', () => get(h.app, '/api/v1/invoices', h.tokens.worker)],
    ['a 404 (unknown path)', () => get(h.app, '/nowhere')],
    ['a 404 (strictness)', () => get(h.app, '/api/v1/workers?bogus=1', h.tokens.staff)],
    ['a malformed request', () => rawRequest(port, 'GARBAGE\r\n\r\n')],
    ['/healthz', () => get(h.app, '/healthz')],
  ];
  // Issue 57: a client learns from any answer what its token may call, and calls nothing else.
  it("tells an accepted token's role and scopes on every REST answer, a refusal too", async () => {
    const cases: [Promise<Answer>, string, string][] = [
      [
        get(h.app, '/api/v1/changes?start=latest', h.tokens.staff),
        'staff',
        'read:program read:financial read:workforce read:pii read:audit',
      ],
      [get(h.app, '/api/v1/changes?start=latest', h.tokens.staffNoPii), 'staff', 'read:program read:financial read:workforce'],
      [get(h.app, '/api/v1/invoices', h.tokens.workforceOnly), 'staff', 'read:workforce'],
      [
        get(h.app, '/api/v1/reports/catalog', h.tokens.billing),
        'billing_entity',
        'read:program read:financial read:workforce read:pii read:audit',
      ],
    ];
    for (const [request, role, scopes] of cases) {
      const answer = await request;
      assert.equal(answer.headers['x-token-role'], role, answer.raw.slice(0, 200));
      assert.equal(answer.headers['x-token-scopes'], scopes);
    }
    const refused = await get(h.app, '/api/v1/workers');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['x-token-role'], undefined);
  });

  for (const [what, request] of answers) {
    it(`sends no-store and nosniff on ${what}`, async () => {
      const answer = await request();
      assert.equal(answer.headers['cache-control'], 'no-store', answer.raw.slice(0, 200));
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    });
  }

  for (const path of ['/app', '/docs', '/openapi.json']) {
    it(`lets ${path}, which holds no data, be cached and revalidated, nosniff too`, async () => {
      const answer = await get(h.app, path);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['cache-control'], 'no-cache');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    });
  }

  it('answers HTTP/1.1 without Host 400 bad_request in the error shape, with its request id', async () => {
    const answer = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    assertError(answer, 400, 'bad_request');
    assert.match(String(answer.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('still answers HTTP/1.0, which has no Host requirement', async () => {
    const answer = await rawRequest(port, 'GET /healthz HTTP/1.0\r\n\r\n');
    assert.equal(answer.status, 200);
  });

  it('keeps tokens and other long opaque values in a path out of the log', async () => {
    const token = h.tokens.staff;
    const opaque = 'A'.repeat(40);
    lines.length = 0;
    for (const path of [
      `/api/v1/${token}`,
      `/${token}/workers`,
      `/api/v1/workers/${opaque}`,
      `/x/${encodeURIComponent(token)}`,
    ])
      assert.equal((await get(h.app, path)).status, 404);
    const logged = lines.map((line) => JSON.stringify(line)).join('\n');
    assert.ok(lines.length >= 4, logged);
    assert.doesNotMatch(logged, /vmsr_/);
    assert.ok(!logged.includes(token.slice(5)), 'no part of the token');
    assert.ok(!logged.includes(opaque));
    assert.match(logged, /"path":"\/api\/v1\/\[redacted\]"/);
  });
  it('writes a large answer in parts over a connection: its length, its bytes, a HEAD without them, one log line each', async () => {
    const url = `http://127.0.0.1:${port}/api/v1/workers?limit=100`;
    const headers = { authorization: `Bearer ${h.tokens.staff}` };
    // The first answer is written new, the later ones from the kept bytes (src/http/raw-answer.ts).
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(url, { headers });
      const bytes = Buffer.from(await response.arrayBuffer());
      assert.equal(response.status, 200);
      assert.ok(bytes.length > 16 * 1024, `a body past the gathering bound: ${bytes.length}`);
      assert.equal(Number(response.headers.get('content-length')), bytes.length);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      const body = JSON.parse(bytes.toString('utf8'));
      assert.equal(body.request_id, response.headers.get('x-request-id'));
      bodies.push(JSON.stringify(body.data));
    }
    assert.equal(new Set(bodies).size, 1);
    const head = await fetch(url, { method: 'HEAD', headers });
    assert.equal(head.status, 200);
    assert.equal(
      Number(head.headers.get('content-length')),
      Buffer.byteLength(`{"data":${bodies[0]},"request_id":"${head.headers.get('x-request-id')}"}`),
    );
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const logged = lines.filter(
      (line) => line.path === '/api/v1/workers' && line.status === 200 && line.msg === 'request',
    );
    assert.ok(logged.length >= 4, `one line per answer: ${logged.length}`);
  });
});
