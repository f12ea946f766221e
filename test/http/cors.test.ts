import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../support/assertions.js';
import { get, post, send, startHarness, type Answer, type Harness } from '../support/harness.js';
import { INITIALIZE_REQUEST } from '../support/mcp-client.js';

const ALLOWED = 'https://app.example.net';
const OTHER = 'https://evil.example.org';
const MCP_HEADERS = {
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/** A browser's preflight: OPTIONS with the method and headers the real request will use. */
function preflight(h: Harness, url: string, origin: string, method = 'POST'): Promise<Answer> {
  return send(h.app, {
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,mcp-protocol-version',
    },
  });
}

/** A request carrying only an Origin, as a page's fetch without a token. */
const fromOrigin = (h: Harness, method: 'GET' | 'OPTIONS', url: string) =>
  send(h.app, { method, url, headers: { origin: ALLOWED } });

const list = (value: unknown) =>
  String(value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase());

/** No header of the CORS protocol at all. */
function assertNoCors(answer: Answer): void {
  const cors = Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));
  assert.deepEqual(cors, [], answer.raw);
}

/** The headers an actual (not preflight) answer to a listed origin carries. */
function assertCorsAnswer(answer: Answer): void {
  assert.equal(answer.headers['access-control-allow-origin'], ALLOWED);
  const exposed = list(answer.headers['access-control-expose-headers']);
  for (const name of ['x-request-id', 'retry-after', 'www-authenticate'])
    assert.ok(exposed.includes(name), `${name} exposed: ${exposed.join(', ')}`);
  assert.ok(list(answer.headers.vary).includes('origin'));
}

describe('CORS for the origins of VMS_READ_ALLOWED_ORIGINS, on /api/v1/* and /mcp', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ origins: { allowedOrigins: [ALLOWED] }, quotaPerMinute: 3 });
  });
  after(() => h.close());

  for (const [url, methods] of [
    ['/api/v1/workers', ['get', 'post']],
    ['/api/v1/reports/query', ['get', 'post']],
    ['/mcp', ['get', 'post', 'delete']],
  ] as const) {
    it(`answers a preflight to ${url} with 204 and the allow headers, without a token`, async () => {
      const answer = await preflight(h, url, ALLOWED);
      assert.equal(answer.status, 204, answer.raw);
      assert.equal(answer.raw, '');
      assert.equal(answer.headers['access-control-allow-origin'], ALLOWED);
      assert.deepEqual(list(answer.headers['access-control-allow-methods']), methods);
      const headers = list(answer.headers['access-control-allow-headers']);
      for (const name of ['authorization', 'content-type', 'mcp-protocol-version'])
        assert.ok(headers.includes(name), `${name} allowed: ${headers.join(', ')}`);
      assert.equal(answer.headers['access-control-max-age'], '600');
      assert.equal(answer.headers['access-control-allow-credentials'], undefined);
      assert.ok(list(answer.headers.vary).includes('origin'));
      assert.match(String(answer.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    });
  }

  it('refuses a preflight from another origin: 404 in the error shape, no allow header', async () => {
    for (const url of ['/api/v1/workers', '/mcp']) {
      const answer = await preflight(h, url, OTHER);
      assertError(answer, 404, 'not_found');
      assertNoCors(answer);
    }
  });

  it('matches the origin exactly (scheme, host and port)', async () => {
    for (const origin of ['http://app.example.net', 'https://app.example.net:8443', 'null'])
      assertNoCors(await preflight(h, '/api/v1/workers', origin));
  });

  it('answers no preflight outside /api/v1/* and /mcp, and an OPTIONS that is none with 404', async () => {
    for (const url of ['/healthz', '/metrics', '/api/v2/workers', '/mcp/x'])
      assertNoCors(await preflight(h, url, ALLOWED, 'GET'));
    const bare = await fromOrigin(h, 'OPTIONS', '/api/v1/workers');
    assertError(bare, 404, 'not_found');
    assertNoCors(bare);
  });

  it('lets the page read a GET answer and its x-request-id', async () => {
    const answer = await get(h.app, '/api/v1/workers?limit=1', h.tokens.staff, { origin: ALLOWED });
    assert.equal(answer.status, 200, answer.raw);
    assertCorsAnswer(answer);
    assert.equal(answer.headers['x-request-id'], answer.body.request_id);
  });

  it('lets the page read a POST answer (the preflighted report query)', async () => {
    const answer = await post(
      h.app,
      '/api/v1/reports/query',
      h.tokens.staffNoPii,
      { query: { metrics: ['invoice_count'] } },
      { origin: ALLOWED },
    );
    assert.equal(answer.status, 200, answer.raw);
    assertCorsAnswer(answer);
  });

  it('puts the CORS headers on errors: 401 (with its challenge), 404', async () => {
    const unauthorized = await get(h.app, '/api/v1/workers', undefined, { origin: ALLOWED });
    assertError(unauthorized, 401, 'unauthorized');
    assertCorsAnswer(unauthorized);
    assert.match(String(unauthorized.headers['www-authenticate']), /^Bearer /);
    const strict = await get(h.app, '/api/v1/workers?nope=1', h.tokens.worker, { origin: ALLOWED });
    assertError(strict, 404, 'not_found');
    assertCorsAnswer(strict);
    const unknown = await get(h.app, '/api/v1/nothing', h.tokens.worker, { origin: ALLOWED });
    assertError(unknown, 404, 'not_found');
    assertCorsAnswer(unknown);
  });

  it('puts the CORS headers on a 429 and its Retry-After', async () => {
    const token = h.tokens.staff2;
    for (let i = 0; i < 3; i++)
      assert.equal((await get(h.app, '/api/v1/workers?limit=1', token)).status, 200);
    const limited = await get(h.app, '/api/v1/workers?limit=1', token, { origin: ALLOWED });
    assertError(limited, 429, 'rate_limited');
    assertCorsAnswer(limited);
    assert.match(String(limited.headers['retry-after']), /^[1-9]\d*$/);
  });

  it('lets the page read /mcp answers, written by the MCP transport itself', async () => {
    const answer = await post(h.app, '/mcp', h.tokens.billing, INITIALIZE_REQUEST, {
      ...MCP_HEADERS,
      origin: ALLOWED,
    });
    assert.equal(answer.status, 200, answer.raw);
    assert.equal(answer.body.result.serverInfo.name, 'vms-read');
    assertCorsAnswer(answer);
    const notAllowed = await fromOrigin(h, 'GET', '/mcp');
    assertError(notAllowed, 405, 'method_not_allowed');
    assertCorsAnswer(notAllowed);
  });

  it('leaves another origin without CORS headers, and /mcp still refuses it (403)', async () => {
    const answer = await get(h.app, '/api/v1/workers?limit=1', h.tokens.billing, { origin: OTHER });
    assertNoCors(answer);
    const mcp = await post(h.app, '/mcp', h.tokens.billing, INITIALIZE_REQUEST, {
      ...MCP_HEADERS,
      origin: OTHER,
    });
    assertError(mcp, 403, 'forbidden');
    assertNoCors(mcp);
  });

  it('sends none on /healthz, and lets the page read the resource metadata a 401 points at', async () => {
    assertNoCors(await get(h.app, '/healthz', undefined, { origin: ALLOWED }));
    const metadata = await get(h.app, '/.well-known/oauth-protected-resource/mcp', undefined, {
      origin: ALLOWED,
    });
    assert.equal(metadata.status, 200);
    assert.equal(metadata.headers['access-control-allow-origin'], ALLOWED);
  });
});

describe('CORS while the server shuts down', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ origins: { allowedOrigins: [ALLOWED] } });
  });
  after(() => h.close());

  it('puts the CORS headers on the 503 of a request arriving during the drain', async () => {
    const drained = h.app.drainAndClose(1000);
    const answer = await get(h.app, '/api/v1/workers', h.tokens.staff, { origin: ALLOWED });
    await drained;
    assertError(answer, 503, 'unavailable');
    assert.match(answer.body.error.message, /shutting down/);
    assertCorsAnswer(answer);
  });
});

describe('CORS without VMS_READ_ALLOWED_ORIGINS', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers a preflight 404 as any unknown route, and no answer carries a CORS header', async () => {
    const answer = await preflight(h, '/api/v1/workers', ALLOWED);
    assertError(answer, 404, 'not_found');
    assertNoCors(answer);
    const read = await get(h.app, '/api/v1/workers?limit=1', h.tokens.staff, { origin: ALLOWED });
    assert.equal(read.status, 200);
    assertNoCors(read);
    assert.equal(read.headers.vary, undefined);
  });
});
