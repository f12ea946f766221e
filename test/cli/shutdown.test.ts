import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exitOf, freePort, startServer } from '../support/cli.js';
import { staffToken } from '../support/harness.js';
import { openSocket, parseRawAnswer, readUntilClosed } from '../support/raw-http.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BODY = JSON.stringify({ query: { metrics: ['invoice_count'] } });

/** A report request whose headers are sent in full and its body only in part: in flight. */
function inFlightHead(token: string): string {
  return (
    `POST /api/v1/reports/query HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n` +
    BODY.slice(0, 10)
  );
}

describe('SIGTERM drains and exits 0 whatever clients hold open', () => {
  let database: TestDatabase;
  let token: string;
  before(async () => {
    database = await openTestDatabase('sqlite');
    token = await staffToken(database.store);
  });
  after(() => database.drop());

  async function serve() {
    const port = await freePort();
    const server = await startServer(['serve', '--db', database.db, '--port', String(port)], port, {
      LOG_LEVEL: 'silent',
    });
    return { port, child: server.child };
  }

  it('closes idle and half-sent connections at once, lets an in-flight request finish, exits 0', async () => {
    const { port, child } = await serve();
    // An idle keep-alive connection: one request answered, the connection left open.
    const idle = await openSocket(port);
    const idleClosed = readUntilClosed(idle, 15_000);
    idle.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // A request whose headers were begun and never finished.
    const halfSent = await openSocket(port);
    const halfClosed = readUntilClosed(halfSent, 15_000);
    halfSent.write(`GET /api/v1/workers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthori`);
    // A request in flight: headers complete, body still arriving.
    const busy = await openSocket(port);
    const busyAnswer = readUntilClosed(busy, 15_000);
    busy.write(inFlightHead(token));
    await sleep(300);

    const signalled = performance.now();
    child.kill('SIGTERM');
    await sleep(300);
    // New connections are refused while the drain runs.
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
    busy.write(BODY.slice(10));

    const answer = parseRawAnswer(await busyAnswer);
    assert.equal(answer.status, 200, answer.raw);
    assert.equal(answer.body.data.status, 'ok');
    assert.ok(
      (await idleClosed).startsWith('HTTP/1.1 200'),
      'the idle connection was served, then closed',
    );
    assert.equal(
      await halfClosed,
      '',
      'the half-sent request got no answer: its connection was closed',
    );
    assert.equal(await exitOf(child), 0);
    const ms = performance.now() - signalled;
    assert.ok(ms < 5_000, `exited ${Math.round(ms)} ms after SIGTERM`);
  });

  it('bounds the drain: a request that never completes is closed and the process exits 0 within 10 s', async () => {
    const { port, child } = await serve();
    const stuck = await openSocket(port);
    const stuckClosed = readUntilClosed(stuck, 20_000);
    stuck.write(inFlightHead(token)); // its body never finishes
    const halfSent = await openSocket(port);
    const halfClosed = readUntilClosed(halfSent, 20_000);
    halfSent.write('GET /healthz HTTP/1.1\r\nHo');
    await sleep(300);
    const signalled = performance.now();
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
    const ms = performance.now() - signalled;
    assert.ok(ms < 10_000, `exited ${Math.round(ms)} ms after SIGTERM`);
    await stuckClosed;
    await halfClosed;
  });

  it('exits 0 at once with nothing in flight, with only a half-sent request open', async () => {
    const { port, child } = await serve();
    const halfSent = await openSocket(port);
    halfSent.write('GET /api/v1/workers HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await sleep(200);
    const signalled = performance.now();
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
    const ms = performance.now() - signalled;
    assert.ok(ms < 3_000, `exited ${Math.round(ms)} ms after SIGTERM`);
    halfSent.destroy();
  });
});
