/**
 * What each client may hold unread (issue 35, items 1 and 2): a client that pipelines requests
 * for large answers on many connections and never reads is bounded on its own (429), counted
 * from each request's arrival, while another client keeps getting its answers; many such
 * clients share the server's total evenly (503 for those over their share); made-up tokens on
 * a route that checks none buy no share; and connections that vanish leave nothing counted.
 * Real sockets on loopback; answers far larger than the system's socket buffers.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Fastify, { type FastifyInstance } from 'fastify';
import { installSlowReaderLimits } from '../../src/http/slow-readers.js';
import { createService } from '../../src/service.js';
import { DIALECTS, staffToken } from '../support/harness.js';
import { silentClient } from '../support/raw-http.js';
import { until } from '../support/until.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MB = 1024 * 1024;

const pipelined = (path: string, depth: number, token?: string) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`.repeat(
    depth,
  );

/** One request read in full: its status and body. */
function ask(port: number, path: string, token?: string) {
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>(
    (resolve, reject) =>
      http
        .get(
          {
            host: '127.0.0.1',
            port,
            path,
            agent: false,
            headers: token ? { authorization: `Bearer ${token}` } : {},
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body, headers: res.headers }),
            );
          },
        )
        .once('error', reject),
  );
}

const connectionsOf = (app: FastifyInstance) =>
  new Promise<number>((resolve, reject) =>
    app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

const BIG = 'x'.repeat(12 * MB);

/**
 * A server with the bounds and `/api/big` (12 MB, counting the answers built), `/big` (the same,
 * on a path that checks no token), `/api/gated` (12 MB once `gate` requests wait on it),
 * `/api/small` and `/healthz`.
 */
async function serve(limits: Parameters<typeof installSlowReaderLimits>[1], gate = 2) {
  const app = Fastify();
  const watch = installSlowReaderLimits(app, limits);
  const served = { app, watch, port: 0, built: 0 };
  const large = async () => {
    served.built++;
    return BIG;
  };
  let waiting = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  app.get('/api/big', large);
  app.get('/big', large);
  app.get('/api/gated', async () => {
    if (++waiting >= gate) open();
    await opened;
    return large();
  });
  app.get('/api/small', async () => 'ok');
  app.get('/healthz', async () => 'ok');
  await app.listen({ host: '127.0.0.1', port: 0 });
  served.port = (app.server.address() as { port: number }).port;
  return served;
}

describe('what each client may hold unread', () => {
  let served: Awaited<ReturnType<typeof serve>>;
  let port: number;
  const open: Socket[] = [];
  before(async () => {
    served = await serve({
      sendMs: 60_000,
      unsentBytes: 400 * MB,
      clientUnsentBytes: 8 * MB,
      clientPending: 64,
      clientPipelined: 4,
    });
    port = served.port;
  });
  after(async () => {
    for (const socket of open) socket.destroy();
    await served.app.close();
  });
  const dropAll = async () => {
    for (const socket of open.splice(0)) socket.destroy();
    await until(
      async () => served.watch.pending() === 0 && (await connectionsOf(served.app)) === 0,
    );
  };

  it('bounds a token that pipelines on many connections and never reads; another token is answered throughout', async () => {
    served.built = 0;
    // 20 connections × 8 pipelined: 160 answers of 12 MB (1.9 GB) asked before any is built.
    for (let i = 0; i < 20; i++)
      open.push(await silentClient(port, pipelined('/api/big', 8, 'attacker')));
    await until(() => served.watch.pending() > 0);
    const victim: number[] = [];
    for (let i = 0; i < 30; i++) victim.push((await ask(port, '/api/small', 'victim')).status);
    assert.deepEqual(
      victim.filter((status) => status !== 200),
      [],
    );
    // Counted before they ran: 20 first requests and at most 4 pipelined ones were admitted; of
    // their answers, those past the attacker's share were refused unsent.
    assert.ok(served.built <= 24, `${served.built} answers built`);
    const refused = await ask(port, '/api/small', 'attacker');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.headers.connection, 'close');
    // /healthz is never counted.
    assert.equal((await ask(port, '/healthz', 'attacker')).status, 200);
    await dropAll();
    assert.equal((await ask(port, '/api/small', 'attacker')).status, 200);
  });

  it('refuses an answer that would take a client past its share once its size is known', async () => {
    served.built = 0;
    // Two requests of one client arrive together, on two connections, before either is built:
    // both are admitted; the second answer (12 MB on top of about 8 unread) is refused unsent.
    const sockets = await Promise.all([
      silentClient(port, pipelined('/api/gated', 1, 'reader')),
      silentClient(port, pipelined('/api/gated', 1, 'reader')),
    ]);
    open.push(...sockets);
    await until(() => served.built === 2);
    const heads = await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<string>((resolve) => {
            socket.once('data', (chunk: Buffer) => {
              socket.pause();
              resolve(chunk.toString('latin1', 0, 12));
            });
            socket.resume();
          }),
      ),
    );
    assert.deepEqual(heads.sort(), ['HTTP/1.1 200', 'HTTP/1.1 429']);
    await dropAll();
  });

  it('counts requests without a checked token per address, whatever token they carry', async () => {
    served.built = 0;
    for (let i = 0; i < 10; i++)
      open.push(await silentClient(port, pipelined('/big', 8, `made-up-${i}`)));
    await until(() => served.built > 0);
    await sleep(200);
    // One address: 10 first requests and at most 4 pipelined ones, not 10 shares of made-up tokens.
    assert.ok(served.built <= 14, `${served.built} answers built`);
    assert.equal((await ask(port, '/big')).status, 429);
    assert.equal((await ask(port, '/api/small', 'victim')).status, 200);
    await dropAll();
  });

  it('leaves nothing counted when pipelining connections vanish, wave after wave', async () => {
    for (let wave = 0; wave < 3; wave++) {
      const sockets = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          silentClient(port, pipelined('/api/big', 8, `w${i % 3}`)),
        ),
      );
      await until(() => served.watch.pending() > 0);
      await sleep(100);
      for (const socket of sockets) socket.destroy();
      await until(
        async () => served.watch.pending() === 0 && (await connectionsOf(served.app)) === 0,
      );
    }
    assert.equal((await ask(port, '/api/small', 'w0')).status, 200);
  });
});

it('shares the total evenly between clients that hold answers, never refusing one that reads', async () => {
  const served = await serve({ sendMs: 60_000, unsentBytes: 10 * MB, clientUnsentBytes: 64 * MB });
  const sockets: Socket[] = [];
  try {
    // Six tokens each hold several MB unread: past the 10 MB total, each may hold 10/6 MB.
    for (let i = 0; i < 6; i++)
      sockets.push(await silentClient(served.port, pipelined('/api/big', 1, `t${i}`)));
    await until(() => served.built >= 6);
    await sleep(100);
    const over = await ask(served.port, '/api/small', 't0');
    assert.equal(over.status, 503);
    assert.equal(over.headers['retry-after'], '1');
    assert.equal((await ask(served.port, '/api/small', 'victim')).status, 200);
  } finally {
    for (const socket of sockets) socket.destroy();
    await served.app.close();
  }
});

it('holds at most a share for waves of pipelining connections that send their last byte and vanish', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const buffers = () => {
    gc();
    gc();
    return process.memoryUsage().arrayBuffers / MB;
  };
  const app = Fastify();
  const watch = installSlowReaderLimits(app, { sendMs: 60_000, clientUnsentBytes: 4 * MB });
  // A new 2 MB buffer per answer, as a served record is.
  app.get('/api/fresh', async () => Buffer.alloc(2 * MB, 120));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const sockets: Socket[] = [];
  try {
    const before = buffers();
    const after: number[] = [];
    for (let wave = 0; wave < 3; wave++) {
      // 30 connections × 8 pipelined requests (480 MB of answers), then a FIN and nothing more:
      // the peer is gone, its connection is not (until the send bound).
      const wave = await Promise.all(
        Array.from({ length: 30 }, () => silentClient(port, pipelined('/api/fresh', 8, 'gone'))),
      );
      for (const socket of wave) socket.end();
      sockets.push(...wave);
      await sleep(500);
      after.push(buffers() - before);
    }
    // Today each wave held what its queued answers took (hundreds of MB); now at most the
    // client's share, an answer past it, and what is being written.
    assert.ok(Math.max(...after) < 24, `grew ${after.map((mb) => mb.toFixed(1)).join(', ')} MB`);
  } finally {
    for (const socket of sockets) socket.destroy();
    await until(() => watch.pending() === 0);
    await app.close();
  }
});

for (const dialect of DIALECTS) {
  describe(`a token that never reads its timesheets does not starve another (${dialect})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let port: number;
    let path: string;
    let attacker: string;
    let victim: string;
    before(async () => {
      db = await openTestDatabase(dialect);
      attacker = await staffToken(db.store);
      victim = await staffToken(db.store);
      const [{ id }] = await db.all<{ id: string }>(
        'SELECT timesheet_id AS id FROM time_entries GROUP BY timesheet_id ORDER BY COUNT(*) DESC, timesheet_id LIMIT 1',
      );
      path = `/api/v1/timesheets/item?id=${id}`;
      // The timesheet's answer is about 800 KB: a share of a few of them, and a total the
      // attacker alone passes many times over (today's one pool answered everyone 503).
      ({ app } = await createService({
        store: db.store,
        secret: 'test-secret',
        quotaPerMinute: 0,
        slowReaders: {
          sendMs: 60_000,
          clientUnsentBytes: 2 * MB,
          unsentBytes: 3 * MB,
          clientPipelined: 2,
        },
      }));
      await app.listen({ host: '127.0.0.1', port: 0 });
      port = (app.server.address() as { port: number }).port;
    });
    after(async () => {
      await app.close();
      await db.drop();
    });

    it('answers the other token 200 throughout; the pipelined requests were counted before they ran', async () => {
      // 40 connections × 8 pipelined requests for the timesheet, none read for now.
      const sockets: Socket[] = [];
      for (let i = 0; i < 40; i++)
        sockets.push(await silentClient(port, pipelined(path, 8, attacker)));
      const received = sockets.map((socket) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        return new Promise<string>((resolve) =>
          socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1'))),
        );
      });
      try {
        await sleep(300);
        for (let i = 0; i < 20; i++) {
          const answer = await ask(port, '/api/v1/workers?limit=5', victim);
          assert.equal(answer.status, 200, answer.body);
        }
      } finally {
        // Now read them all: each connection ends after its first refusal (connection: close).
        for (const socket of sockets) socket.resume();
      }
      const perConnection = await Promise.all(received);
      const answers = perConnection.join('');
      const count = (text: string, status: number) => text.split(`HTTP/1.1 ${status} `).length - 1;
      // Which of the attacker's requests are answered depends on the machine's speed (how much of
      // an answer the system's socket buffers took before the next ran), so what is asserted is
      // what holds at any speed: every connection was answered, each ended at its first refusal
      // (a 429 is its last answer, never two), the answers built were bounded by the shares (at
      // most the 40 first and 2 pipelined behind each in flight: all 320 ran before, and answered
      // 503 to everyone once the total was passed), and the refusals say why.
      const statuses = perConnection.map((text) =>
        [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])),
      );
      const counts = `${count(answers, 200)} answered 200, ${count(answers, 429)} refused`;
      for (const [i, answered] of statuses.entries()) {
        assert.ok(answered.length >= 1, `connection ${i} answered nothing (${counts})`);
        assert.ok(
          answered.every(
            (status, k) => status === 200 || (status === 429 && k === answered.length - 1),
          ),
          `connection ${i}: ${answered.join(', ')} (${counts})`,
        );
      }
      assert.ok(count(answers, 200) <= 160, counts);
      assert.ok(count(answers, 429) >= 1, counts);
      assert.ok(answers.includes('"code":"rate_limited"'));
      await until(async () => (await connectionsOf(app)) === 0);
      assert.equal((await ask(port, '/api/v1/workers?limit=5', attacker)).status, 200);
    });
  });
}
