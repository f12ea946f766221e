// Issue 56's findings (a) and (c): clients that pipeline requests for a large answer and never
// read it. (a) waves of connections that pipeline and vanish, the server's anonymous memory
// after each; (c) connections of one token that pipeline and never read, each replaced by a new
// one after a while, while another token asks one request at a time.
import http from 'node:http';
import { connect } from 'node:net';
import { request } from '../open-internet/http.mjs';
import { anonymousOf } from './breakdown.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : null);
const percentile = (xs, p) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** `depth` GETs of `path` with `token`, in one write, as a pipelining client sends them. */
const pipelined = (path, token, depth) =>
  `GET ${path} HTTP/1.1\r\nHost: attack\r\nAuthorization: Bearer ${token}\r\n\r\n`.repeat(depth);

/** A connection that sends `bytes` and reads nothing; resolves once it is open and sent. */
function silentConnection(port, bytes) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.pause();
      socket.write(bytes);
      resolve(socket);
    });
    socket.on('error', () => resolve(socket));
  });
}

/** The server's answers of `operation` by status so far, from /metrics. */
async function answersOf(server, operation) {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const byStatus = {};
  const pattern = new RegExp(
    `^vms_read_requests_total\\{operation="${operation}",status="(\\d+)",transport="rest"\\} (\\d+)$`,
    'gm',
  );
  for (const [, status, count] of text.matchAll(pattern)) byStatus[status] = Number(count);
  return byStatus;
}

/**
 * (a): `waves` times, `connections` connections each pipeline `depth` requests for `path` and
 * vanish (their FIN after `vanishAfterMs`, nothing read; closed at the end). Anonymous memory
 * before (after `warmReads` reads of the answer and 3 s idle) and `settleMs` after each wave.
 */
export async function vanishingWaves(
  server,
  { path, token, waves = 4, connections = 60, depth = 8, vanishAfterMs = 1500, settleMs = 5000 },
) {
  for (let i = 0; i < 20; i++)
    await request(null, server.port, { path, headers: { authorization: `Bearer ${token}` } });
  await sleep(3000);
  const before = anonymousOf(server.pid);
  const afterEachWave = [];
  const gone = [];
  for (let wave = 0; wave < waves; wave++) {
    const bytes = pipelined(path, token, depth);
    const sockets = await Promise.all(
      Array.from({ length: connections }, () => silentConnection(server.port, bytes)),
    );
    await sleep(vanishAfterMs);
    for (const socket of sockets) socket.end();
    gone.push(...sockets);
    await sleep(settleMs);
    afterEachWave.push(anonymousOf(server.pid));
  }
  const answers = await answersOf(server, 'get_timesheet');
  for (const socket of gone) socket.destroy();
  const last = afterEachWave[afterEachWave.length - 1];
  return {
    waves,
    connections,
    depth,
    before,
    afterEachWave,
    anonGrowthMb: round(last.anonMb - before.anonMb),
    answersByStatus: answers,
  };
}

/**
 * (c): `connections` connections of `token` each pipeline `depth` requests for `path` and never
 * read; each is replaced by a new one once the server closes it or after `replaceAfterMs`, for
 * `seconds`. Meanwhile `victimToken` asks for `victimPath` one request at a time (20 ms apart),
 * each given `victimTimeoutMs`. Its share of 200s and its times.
 */
export async function unreadPipelines(
  server,
  {
    path,
    token,
    victimPath,
    victimToken,
    seconds = 40,
    connections = 60,
    depth = 8,
    replaceAfterMs = 10_000,
    victimTimeoutMs = 10_000,
  },
) {
  const bytes = pipelined(path, token, depth);
  let running = true;
  let opened = 0;
  const keepOne = async () => {
    while (running) {
      const socket = await silentConnection(server.port, bytes);
      opened++;
      const closed = new Promise((resolve) => socket.once('close', resolve));
      await Promise.race([closed, sleep(replaceAfterMs)]);
      socket.destroy();
    }
  };
  const attackers = Array.from({ length: connections }, keepOne);
  await sleep(500);
  const victim = { byStatus: {}, ms: [] };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ends = performance.now() + seconds * 1000;
  while (performance.now() < ends) {
    const answer = await request(agent, server.port, {
      path: victimPath,
      headers: { authorization: `Bearer ${victimToken}` },
      timeoutMs: victimTimeoutMs,
      discard: true,
    });
    const status = answer.status || answer.error || 'none';
    victim.byStatus[status] = (victim.byStatus[status] ?? 0) + 1;
    victim.ms.push(answer.ms);
    await sleep(20);
  }
  running = false;
  agent.destroy();
  await Promise.all(attackers);
  const requests = victim.ms.length;
  return {
    connections,
    depth,
    seconds,
    connectionsOpened: opened,
    attackerAnswers: await answersOf(server, 'get_timesheet'),
    victim: {
      requests,
      okShare: round((100 * (victim.byStatus[200] ?? 0)) / Math.max(1, requests)) / 100,
      byStatus: victim.byStatus,
      p50Ms: round(percentile(victim.ms, 50)),
      p99Ms: round(percentile(victim.ms, 99)),
      maxMs: round(Math.max(...victim.ms)),
      // Answered, but later than a client would wait: past 1 s, past 2 s (the store's limit).
      over1s: victim.ms.filter((ms) => ms > 1000).length,
      over2s: victim.ms.filter((ms) => ms > 2000).length,
    },
  };
}
