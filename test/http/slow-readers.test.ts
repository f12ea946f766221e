/**
 * Slow readers (issue 21, item 2): a client that does not read its answer is cut off once the
 * send bound passes, and while its unread answers hold more than its share, its new requests are
 * answered 429 at once (`/healthz` still answers; other clients: unread-shares.test.ts). Real sockets on loopback; the
 * bounds are set small so the test runs in seconds, and what is asserted is what happened, each
 * wait bounded by a deadline.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createService } from '../../src/service.js';
import { installSlowReaderLimits } from '../../src/http/slow-readers.js';
import { silentClient } from '../support/raw-http.js';
import { until } from '../support/until.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { staffToken } from '../support/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const connections = (app: FastifyInstance) =>
  new Promise<number>((resolve, reject) =>
    app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

describe('answers no client reads hold nothing for long', () => {
  it("answers 429 while a client's unread answers pass its share, keeps /healthz, and frees them at the send bound", async () => {
    const app = Fastify();
    installSlowReaderLimits(app, { sendMs: 1500, clientUnsentBytes: 4 * 1024 * 1024 });
    const big = 'x'.repeat(40 * 1024 * 1024);
    app.get('/big', async () => big);
    app.get('/small', async () => 'ok');
    app.get('/healthz', async () => 'ok');
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    try {
      const reader = await silentClient(port, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
      // The system's buffers take a few MB; the rest (tens of MB) waits in this process.
      await until(async () => (await fetch(`http://127.0.0.1:${port}/small`)).status === 429);
      const refused = await fetch(`http://127.0.0.1:${port}/small`);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
      // Past the send bound the reader is cut off and what it held is freed.
      await until(async () => (await fetch(`http://127.0.0.1:${port}/small`)).status === 200);
      reader.destroy();
    } finally {
      await app.close();
    }
  });

  describe('a served answer (a timesheet of 1,000 entries) a client never reads', () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let port: number;
    let request: string;
    let path: string;
    let token: string;
    before(async () => {
      db = await openTestDatabase('sqlite');
      token = await staffToken(db.store);
      ({ app } = await createService({
        store: db.store,
        secret: 'test-secret',
        quotaPerMinute: 0,
        slowReaders: { sendMs: 1000 },
      }));
      await app.listen({ host: '127.0.0.1', port: 0 });
      port = (app.server.address() as { port: number }).port;
      const [{ id }] = await db.all<{ id: string }>(
        'SELECT timesheet_id AS id FROM time_entries GROUP BY timesheet_id ORDER BY COUNT(*) DESC LIMIT 1',
      );
      path = `/api/v1/timesheets/item?id=${id}`;
      request = `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    });
    after(async () => {
      await app.close();
      await db.drop();
    });

    it('closes each such connection once the send bound passes, whatever the system buffered', async () => {
      const readers = await Promise.all(
        Array.from({ length: 20 }, () => silentClient(port, request)),
      );
      await until(async () => (await connections(app)) >= 20);
      // Nothing is read; the server closes all twenty of its own accord.
      await until(async () => (await connections(app)) === 0);
      for (const reader of readers) reader.destroy();
      // A reader that reads gets its whole answer.
      const whole = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(whole.status, 200);
      assert.ok((await whole.text()).length > 500_000);
    });
  });

  it('leaves injected requests (no real connection) alone past the send bound', async () => {
    const app = Fastify();
    installSlowReaderLimits(app, { sendMs: 20, unsentBytes: 1024 });
    app.get('/small', async () => 'ok');
    try {
      const answer = await app.inject({ method: 'GET', url: '/small' });
      assert.equal(answer.statusCode, 200);
      // The bound's timer would have fired by now; a stand-in socket must not be touched (it
      // threw "socket.destroy is not a function" outside any request before).
      await sleep(100);
      assert.equal((await app.inject({ method: 'GET', url: '/small' })).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it('holds nothing per answer on a keep-alive connection once the client asks again', async () => {
    const app = Fastify();
    installSlowReaderLimits(app, { sendMs: 60_000, unsentBytes: 1024 * 1024 });
    // What the connection holds when each request arrives: its close listeners.
    const listeners: number[] = [];
    app.get('/small', async (request) => {
      listeners.push(request.raw.socket.listenerCount('close'));
      return 'ok';
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 50; i++) {
        const status = await new Promise<number>((resolve, reject) =>
          http
            .get({ host: '127.0.0.1', port, path: '/small', agent }, (res) => {
              res.resume();
              res.once('end', () => resolve(res.statusCode ?? 0));
            })
            .once('error', reject),
        );
        assert.equal(status, 200);
      }
      // One connection carried all fifty; what it holds did not grow with them (it grew by
      // one listener, and one pending bound, per answer before).
      assert.equal(listeners.length, 50);
      assert.equal(listeners[49], listeners[1], JSON.stringify(listeners));
    } finally {
      agent.destroy();
      await app.close();
    }
  });
  it('counts nothing as sending for an answer whose client left before it was ready', async () => {
    const app = Fastify();
    const watch = installSlowReaderLimits(app, { sendMs: 60_000, unsentBytes: 1024 * 1024 });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    app.get('/slow', async (request) => {
      started();
      // The answer is ready only after its client has gone.
      await new Promise((resolve) => request.raw.socket.once('close', resolve));
      // Fastify sends it (its onSend hooks run on the closed response) in the turns after.
      setTimeout(answered, 100);
      return 'late';
    });
    app.get('/small', async () => 'ok');
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    try {
      const client = await silentClient(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
      await running;
      client.destroy();
      await done;
      assert.equal(watch.pending(), 0);
      // And an answer read in full leaves nothing counted either.
      assert.equal((await fetch(`http://127.0.0.1:${port}/small`)).status, 200);
      await until(async () => watch.pending() === 0, 5000);
    } finally {
      await app.close();
    }
  });
});
