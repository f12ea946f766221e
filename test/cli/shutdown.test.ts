import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exitOf, freePort, startServer } from '../support/cli.js';
import { staffToken } from '../support/harness.js';
import { openSocket, parseRawAnswer, readUntilClosed } from '../support/raw-http.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BODY = JSON.stringify({ query: { metrics: ['invoice_count'] } });

/**
 * A report request whose headers are sent in full and its body only in part: in flight. With
 * `Expect: 100-continue` the server says `100 Continue` as it takes the request in, which tells
 * the test it is in flight, however slow the machine.
 */
function inFlightHead(token: string, expectContinue = false): string {
  return (
    `POST /api/v1/reports/query HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
    (expectContinue ? 'Expect: 100-continue\r\n' : '') +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n` +
    BODY.slice(0, 10)
  );
}

/** Polls until `check` holds: the test's timeout is the deadline, not a guess at a duration. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(50);
}

describe('SIGTERM drains and exits 0 whatever clients hold open', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let token: string;
  before(async () => {
    database = await openTestDatabase('sqlite');
    token = await staffToken(database.store);
  });
  after(() => database.drop());

  /**
   * A server whose drain lasts `drainMs`: ten minutes where the test shows that the process does
   * not wait for it (it exits as soon as nothing is in flight), half a second where it shows the
   * drain is bounded (a request that never completes cannot hold the exit). What is asserted is
   * that the process exits 0, not how fast: the tests' own timeout is the deadline.
   */
  async function serve(drainMs = 600_000) {
    const port = await freePort();
    const server = await startServer(['serve', '--db', database.db, '--port', String(port)], port, {
      LOG_LEVEL: 'silent',
      VMS_READ_DRAIN_MS: String(drainMs),
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
    let busyText = '';
    busy.on('data', (chunk: Buffer) => (busyText += chunk.toString('utf8')));
    const busyClosed = new Promise((resolve) => busy.once('close', resolve));
    busy.write(inFlightHead(token, true));
    await until(() => busyText.includes('100 Continue'));

    child.kill('SIGTERM');
    // New connections are refused while the drain runs.
    await until(() =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => false,
        () => true,
      ),
    );
    busy.write(BODY.slice(10));

    await busyClosed;
    const answer = parseRawAnswer(busyText.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ''));
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
    // The drain lasts ten minutes: the exit came because nothing was in flight any more.
    assert.equal(await exitOf(child), 0);
  });

  it('bounds the drain: a request that never completes is closed and the process exits 0', async () => {
    const { port, child } = await serve(500);
    const stuck = await openSocket(port);
    const stuckClosed = readUntilClosed(stuck, 20_000);
    stuck.write(inFlightHead(token)); // its body never finishes
    const halfSent = await openSocket(port);
    const halfClosed = readUntilClosed(halfSent, 20_000);
    halfSent.write('GET /healthz HTTP/1.1\r\nHo');
    await sleep(300);
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
    await stuckClosed;
    await halfClosed;
  });

  it('answers every request that reached it in the last moments before SIGTERM: its result or 503', async () => {
    const { port, child } = await serve(10_000);
    // 30 connections at once, each sending a whole request, and the signal 2 ms later: some are
    // still in the kernel's listen backlog, some accepted with their request unread.
    const answers = Array.from(
      { length: 30 },
      () =>
        new Promise<string>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          let text = '';
          socket.setEncoding('utf8');
          socket.on('data', (chunk: string) => (text += chunk));
          socket.once('error', (error: NodeJS.ErrnoException) => resolve(`${error.code}`));
          socket.once('close', () => resolve(text));
          socket.write(
            `GET /api/v1/timesheets?limit=200 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
          );
        }),
    );
    await sleep(2);
    child.kill('SIGTERM');
    const settled = await Promise.all(answers);
    const unanswered = settled.filter((text) => !text.startsWith('HTTP/1.1 '));
    assert.deepEqual(unanswered, [], `${unanswered.length} of 30 reset or closed unanswered`);
    for (const text of settled) {
      const answer = parseRawAnswer(text);
      assert.ok([200, 503].includes(answer.status), answer.raw);
      if (answer.status === 503) assert.equal(answer.body.error.code, 'unavailable', answer.raw);
    }
    assert.equal(await exitOf(child), 0);
  });

  it('answers a connection made before SIGTERM whose request comes a moment after it', async () => {
    const { port, child } = await serve(10_000);
    // Connected before the signal, its request written 200 ms after it, past the listener's
    // quiet wait: a slow client, or one on a busy machine.
    const late = await openSocket(port);
    let text = '';
    late.setEncoding('utf8');
    late.on('data', (chunk: string) => (text += chunk));
    const closed = new Promise((resolve) => late.once('close', resolve));
    await sleep(100);
    child.kill('SIGTERM');
    await sleep(200);
    late.write(
      `GET /api/v1/workers?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    await closed;
    const answer = parseRawAnswer(text);
    assert.equal(answer.status, 503, answer.raw);
    assert.equal(answer.body.error.code, 'unavailable');
    assert.equal(await exitOf(child), 0);
  });

  it('exits 0 at once with nothing in flight, with only a half-sent request open', async () => {
    const { port, child } = await serve();
    const halfSent = await openSocket(port);
    halfSent.write('GET /api/v1/workers HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await sleep(200);
    child.kill('SIGTERM');
    // The drain lasts ten minutes: a half-sent request is not in flight and holds nothing.
    assert.equal(await exitOf(child), 0);
    halfSent.destroy();
  });
});
