/**
 * One webhook request (src/webhooks/post.ts) against a real receiver on loopback: the body and
 * headers arrive as sent; a redirect is an answer, never followed; a long answer is read only to
 * its cap, and only its size is said; a receiver that never answers is given up at the time limit,
 * or at the try's end when that comes first; a request that connects only after its end (the
 * process stalled) sends nothing; and without the insecure setting, a loopback literal and a name
 * that resolves to a private address when connecting (DNS rebinding) are refused before anything
 * reaches the receiver.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { NOT_SENT, postWebhook } from '../../src/webhooks/post.js';

describe('a webhook request', () => {
  let server: Server;
  let base: string;
  const received: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const routes: Record<string, (response: ServerResponse) => void> = {
    '/ok': (r) => r.writeHead(204).end(),
    '/stalled': (r) => r.writeHead(204).end(),
    '/moved': (r) => r.writeHead(302, { location: '/ok' }).end(),
    '/gone': (r) => r.writeHead(410).end('gone'),
    '/long': (r) => r.writeHead(500).end('x'.repeat(1 << 20)),
    '/silent': () => {},
  };
  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', headers: request.headers, body });
        routes[request.url ?? '']?.(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const insecure = { allowInsecure: true };

  it('sends the body and headers as given, and says the status', async () => {
    const body = JSON.stringify({ type: 'vms.changes', items: [] });
    const outcome = await postWebhook(
      new URL(`${base}/ok`),
      body,
      { 'webhook-id': 'msg_1' },
      insecure,
    );
    assert.deepEqual(outcome, { status: 204, bytes: 0 });
    const last = received[received.length - 1];
    assert.equal(last.body, body);
    assert.equal(last.headers['webhook-id'], 'msg_1');
    assert.equal(last.headers['content-type'], 'application/json');
  });

  it('does not follow a redirect, and counts a long answer only to its cap', async () => {
    const before = received.length;
    assert.deepEqual(await postWebhook(new URL(`${base}/moved`), '{}', {}, insecure), {
      status: 302,
      bytes: 0,
    });
    assert.deepEqual(
      received.slice(before).map((r) => r.path),
      ['/moved'],
      'the redirect target was not asked',
    );
    const long = await postWebhook(
      new URL(`${base}/long`),
      '{}',
      {},
      { ...insecure, maxResponseBytes: 100 },
    );
    assert.deepEqual(long, { status: 500, bytes: 100 }, 'read to the cap, then dropped');
    assert.deepEqual(await postWebhook(new URL(`${base}/gone`), '{}', {}, insecure), {
      status: 410,
      bytes: 4,
    });
  });

  it('gives up on a receiver that never answers at the time limit', async () => {
    const outcome = await postWebhook(
      new URL(`${base}/silent`),
      '{}',
      {},
      { ...insecure, timeoutMs: 300 },
    );
    assert.deepEqual(outcome, { error: 'no answer within 0.3 s' });
  });

  it('ends at the try’s end when it comes before the time limit', { timeout: 60_000 }, async () => {
    // The test's guard (60 s) only turns a try that ran to its hour-long limit into a failure.
    const outcome = await postWebhook(
      new URL(`${base}/silent`),
      '{}',
      {},
      { ...insecure, timeoutMs: 3_600_000, endsAt: { at: 1, clock: () => 0 } },
    );
    assert.deepEqual(outcome, { error: 'no answer within 3600 s' });
  });

  it('sends nothing when it connects only after the try’s end (the process stalled)', async () => {
    const port = (server.address() as AddressInfo).port;
    let clock = 0;
    const stalled = await postWebhook(
      new URL(`http://hooks.example.com:${port}/stalled`),
      '{}',
      {},
      {
        ...insecure,
        // The clock passes the try's end while the name is looked up.
        resolve: async () => {
          clock = 1000;
          return ['127.0.0.1'];
        },
        endsAt: { at: 1000, clock: () => clock },
      },
    );
    assert.deepEqual(stalled, { error: NOT_SENT });
    const sent = await postWebhook(
      new URL(`${base}/ok`),
      '{}',
      {},
      { ...insecure, endsAt: { at: Date.now() + 60_000, clock: Date.now } },
    );
    assert.deepEqual(sent, { status: 204, bytes: 0 });
    assert.ok(
      received.every((r) => r.path !== '/stalled'),
      'only the request connected in time arrived',
    );
  });

  it('refuses a private literal, and a name resolving to a private address when connecting, sending nothing', async () => {
    const before = received.length;
    assert.deepEqual(await postWebhook(new URL(`${base}/ok`), '{}', {}, { allowInsecure: false }), {
      error: '127.0.0.1 is not a public address',
    });
    // The name was public when the subscription was made; now it answers with loopback.
    const port = (server.address() as AddressInfo).port;
    const rebound = await postWebhook(
      new URL(`http://hooks.example.com:${port}/ok`),
      '{}',
      {},
      {
        allowInsecure: false,
        resolve: async () => ['127.0.0.1'],
      },
    );
    assert.deepEqual(rebound, {
      error: 'hooks.example.com resolves to 127.0.0.1, which is not a public address',
    });
    // The same resolution with the insecure setting reaches the receiver: the refusal was the rule's.
    const allowed = await postWebhook(
      new URL(`http://hooks.example.com:${port}/ok`),
      '{}',
      {},
      {
        allowInsecure: true,
        resolve: async () => ['127.0.0.1'],
      },
    );
    assert.deepEqual(allowed, { status: 204, bytes: 0 });
    assert.equal(received.length, before + 1, 'only the allowed request arrived');
  });
});
