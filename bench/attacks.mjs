// The attacks `npm run soak` runs after its traffic (issue 35): a client that pipelines requests
// for a large answer on many connections and never reads, while a well-behaved client asks for a
// small one; and waves of pipelining connections that vanish, the server's RSS after each wave.
// Each returns figures for the soak's result file; none asserts (the tests do, on small bounds).
import http from 'node:http';
import { connect } from 'node:net';
import { processMemory } from './lib.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, digits = 1) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
const percentile = (xs, p) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** `depth` GETs of `path` in one write, as one pipelining client sends them. */
const pipelined = (path, token, depth) =>
  Array.from(
    { length: depth },
    () =>
      `GET ${path} HTTP/1.1\r\nHost: attack\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`,
  ).join('');

/** A connection that sends `requests` and reads nothing; resolves once it is open and sent. */
function silentConnection(port, requests) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.pause();
      socket.write(requests);
      resolve(socket);
    });
    socket.on('error', () => resolve(socket));
  });
}

/**
 * A well-behaved client: asks `path` with `token` one request at a time on keep-alive
 * connections, reading every answer, until `stop()`; counts statuses and times.
 */
function victim(port, path, token) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const seen = { requests: 0, ok: 0, byStatus: {}, ms: [] };
  let running = true;
  const once = () =>
    new Promise((resolve) => {
      const started = performance.now();
      const done = (status) => {
        seen.requests++;
        seen.byStatus[status] = (seen.byStatus[status] ?? 0) + 1;
        if (status === 200) seen.ok++;
        seen.ms.push(performance.now() - started);
        resolve();
      };
      const req = http.get(
        {
          host: '127.0.0.1',
          port,
          path,
          agent,
          timeout: 30_000,
          headers: { authorization: `Bearer ${token}` },
        },
        (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode));
          res.on('error', () => done('error'));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => done('error'));
    });
  const loop = (async () => {
    while (running) {
      await once();
      await sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
      return {
        requests: seen.requests,
        ok: seen.ok,
        okShare: round(seen.ok / Math.max(1, seen.requests), 3),
        byStatus: seen.byStatus,
        p50Ms: round(percentile(seen.ms, 50)),
        p99Ms: round(percentile(seen.ms, 99)),
        maxMs: round(Math.max(...seen.ms)),
      };
    },
  };
}

/**
 * Issue 35, item 1: `connections` connections each pipeline `depth` requests for `path` (with
 * `token`, or none) and never read; a connection the server closes is opened again at once, for
 * `seconds`. Meanwhile a victim with its own token asks for `victimPath`. Returns the victim's
 * share of 200s, its times, the attacker's requests and the server's peak RSS.
 */
export async function unreadPipelines({
  port,
  pid,
  path,
  token,
  victimPath,
  victimToken,
  seconds = 40,
  connections = 120,
  depth = 8,
}) {
  const requests = pipelined(path, token, depth);
  let running = true;
  let sent = 0;
  let peakRss = 0;
  const open = new Set();
  const keepOne = async () => {
    while (running) {
      const socket = await silentConnection(port, requests);
      sent += depth;
      open.add(socket);
      await new Promise((resolve) => socket.once('close', resolve));
      open.delete(socket);
      await sleep(10);
    }
  };
  const attackers = Array.from({ length: connections }, keepOne);
  await sleep(500);
  const client = victim(port, victimPath, victimToken);
  const ends = Date.now() + seconds * 1000;
  while (Date.now() < ends) {
    peakRss = Math.max(peakRss, processMemory(pid)?.rssMb ?? 0);
    await sleep(500);
  }
  const victimSeen = await client.stop();
  running = false;
  for (const socket of open) socket.destroy();
  await Promise.all(attackers);
  return {
    attack: { connections, depth, path, withToken: Boolean(token), seconds, requestsSent: sent },
    victim: victimSeen,
    peakRssMb: round(peakRss),
  };
}

/**
 * Issue 35, item 2: `waves` times, `connections` connections each pipeline `depth` requests for
 * `path` and vanish: their last byte sent (a FIN once the server has started answering), nothing
 * read, the sockets left as a peer that went away leaves them (closed at the end). The server's
 * RSS after each wave, once it had `settleMs` to let go.
 */
export async function vanishingWaves({
  port,
  pid,
  path,
  token,
  waves = 4,
  connections = 120,
  depth = 8,
  settleMs = 5000,
}) {
  const requests = pipelined(path, token, depth);
  const rssMb = [round(processMemory(pid)?.rssMb)];
  const gone = [];
  for (let wave = 0; wave < waves; wave++) {
    const sockets = await Promise.all(
      Array.from({ length: connections }, () => silentConnection(port, requests)),
    );
    await sleep(1500);
    for (const socket of sockets) socket.end();
    gone.push(...sockets);
    await sleep(settleMs);
    rssMb.push(round(processMemory(pid)?.rssMb));
  }
  for (const socket of gone) socket.destroy();
  return { waves, connections, depth, path, rssMbBeforeAndAfterEachWave: rssMb };
}

/** The timesheet with the most entries (its answer is the largest a token can ask for). */
export async function largestTimesheet(db) {
  const sql =
    'SELECT timesheet_id AS id FROM time_entries GROUP BY timesheet_id ORDER BY COUNT(*) DESC, timesheet_id LIMIT 1';
  if (db.startsWith('postgres')) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      return (await client.query(sql)).rows[0].id;
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite.prepare(sql).get().id;
  } finally {
    sqlite.close();
  }
}

/**
 * The repertoire: the unread pipelines with a token (the largest timesheet) and without one
 * (`/openapi.json`), then the vanishing waves; `log` says what runs.
 */
export async function runAttacks({ db, port, pid, attackerToken, victimToken, log }) {
  const timesheet = `/api/v1/timesheets/item?id=${encodeURIComponent(await largestTimesheet(db))}`;
  const victimPath = '/api/v1/workers?limit=10';
  log(`attack: unread pipelines with a token (${timesheet}), 40 s`);
  const withToken = await unreadPipelines({
    port,
    pid,
    path: timesheet,
    token: attackerToken,
    victimPath,
    victimToken,
  });
  await sleep(2000);
  log('attack: unread pipelines without a token (/openapi.json), 40 s');
  const withoutToken = await unreadPipelines({
    port,
    pid,
    path: '/openapi.json',
    token: null,
    victimPath,
    victimToken,
  });
  await sleep(2000);
  log('attack: 4 waves of 120 connections x 8 pipelined requests that vanish');
  const waves = await vanishingWaves({ port, pid, path: timesheet, token: attackerToken });
  return { unreadPipelinesWithToken: withToken, unreadPipelinesWithoutToken: withoutToken, waves };
}
