import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, UUID_V4 } from '../support/assertions.js';
import { get, post, send, startHarness, type Harness } from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';

/** DESIGN §4.1: a body over 1 MiB is 413 payload_too_large. */
const MIB = 1024 * 1024;

// HTTP-level answers come before any store is asked: one store is enough here.
describe('answers at the HTTP edge keep the documented error shape', () => {
  let h: Harness;
  let port: number;
  before(async () => {
    h = await startHarness();
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = (h.app.server.address() as { port: number }).port;
  });
  after(() => h.close());

  describe('request bodies are bounded at 1 MiB', () => {
    const oversized = JSON.stringify({ query: { metrics: ['spend'] }, pad: 'x'.repeat(MIB) });
    for (const path of ['/api/v1/reports/query', '/api/v1/reports/saved-queries/run', '/mcp']) {
      it(`answers 413 payload_too_large on ${path}`, async () => {
        const answer = await post(h.app, path, h.tokens.staff, oversized, {
          accept: 'application/json, text/event-stream',
        });
        assertError(answer, 413, 'payload_too_large');
      });
    }
    it('still reads a body just under the limit (and judges it on its merits)', async () => {
      const body = `{"query":{"metrics":["spend"]}}${' '.repeat(MIB - 100)}`;
      const answer = await post(h.app, '/api/v1/reports/query', h.tokens.staff, body);
      assert.equal(answer.status, 200, answer.raw.slice(0, 200));
    });
    it('answers 413 from the Content-Length alone, before reading the body', async () => {
      const answer = await rawRequest(
        port,
        `POST /api/v1/reports/query HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.tokens.staff}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${50 * MIB}\r\nConnection: close\r\n\r\n{`,
      );
      assertError(answer, 413, 'payload_too_large');
    });
  });

  describe("malformed HTTP gets the error shape and a request id, never Fastify's default body", () => {
    it('answers a bad request line 400 bad_request', async () => {
      assertError(await rawRequest(port, 'GARBAGE\r\n\r\n'), 400, 'bad_request');
    });
    it('answers a header without a colon 400 bad_request', async () => {
      assertError(
        await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'),
        400,
        'bad_request',
      );
    });
    it('answers oversized headers 431 header_too_large', async () => {
      const answer = await rawRequest(
        port,
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      assertError(answer, 431, 'header_too_large');
    });
    it('answers a malformed URL 404 with the error shape', async () => {
      const answer = await rawRequest(
        port,
        `GET /api/v1/workers?id=%E0%A4%A HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.tokens.staff}\r\nConnection: close\r\n\r\n`,
      );
      assertError(answer, 404, 'not_found');
    });
  });

  describe('paths and parameters Fastify cannot take at face value', () => {
    for (const path of ['/api/v1/ZQmarker%zz', '/api/v1/reports/catalog%ED%A0%80', '/%']) {
      it(`answers the undecodable path ${path} 404 in the error shape, without echoing it`, async () => {
        const answer = await get(h.app, path, h.tokens.staff);
        assertError(answer, 404, 'not_found');
        assert.ok(!answer.raw.includes('ZQmarker'));
      });
    }
    for (const path of ['/nowhere', '/api/v1/reports/query', '/%']) {
      it(`answers HEAD ${path} 404 with no body and its request id`, async () => {
        const answer = await send(h.app, {
          method: 'HEAD',
          url: path,
          headers: { authorization: `Bearer ${h.tokens.staff}` },
        });
        assert.equal(answer.status, 404);
        assert.equal(answer.raw, '');
        assert.match(String(answer.headers['x-request-id']), UUID_V4);
      });
    }
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      it(`treats a query parameter named ${name} as the unknown parameter it is`, async () => {
        assertError(
          await get(h.app, `/api/v1/reports/catalog?${name}=`, h.tokens.staff),
          404,
          'not_found',
        );
        assertError(
          await get(h.app, `/api/v1/workers?limit=1&${name}=1`, h.tokens.staff),
          404,
          'not_found',
        );
      });
    }
  });

  describe('every REST answer carries its request id', () => {
    for (const [what, request] of [
      ['/healthz', () => get(h.app, '/healthz')],
      ['an unknown path', () => get(h.app, '/nowhere')],
      ['a 401', () => get(h.app, '/api/v1/workers')],
      ['a 200', () => get(h.app, '/api/v1/workers?limit=1', h.tokens.staff)],
    ] as const) {
      it(`on ${what}`, async () => {
        const answer = await request();
        assert.match(String(answer.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      });
    }
  });
});
