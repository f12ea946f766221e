// Attack 4: 200 keep-alive connections from one address read /openapi.json without a token as
// fast as they can, while a token holder lists workers one request at a time.
import http from 'node:http';
import { log, MB, round, sleep } from './common.mjs';
import { mintKey } from './build.mjs';
import { freshDatabase } from './databases.mjs';
import { agentOf, request, series } from './http.mjs';
import { rssSampler, snapshot } from './measure.mjs';
import { startServer } from './server.mjs';

/**
 * A token holder asking `path` one request at a time (20 ms apart) on a keep-alive connection of
 * its own, until stop(): its latencies and statuses.
 */
function tokenHolder(port, path, token) {
  const agent = agentOf(1);
  const seen = series();
  const byStatus = {};
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const res = await request(agent, port, {
        path,
        headers: { authorization: `Bearer ${token}` },
        discard: true,
      });
      const status = res.status || `error ${res.error}`;
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      seen.add(at, res.ms, res.status === 200, String(status));
      await sleep(20);
    }
  })();
  return {
    seen,
    byStatus,
    async stop() {
      running = false;
      await loop;
      agent.destroy();
    },
  };
}

export async function anonymousFloodAttack({ build, source, seconds, connections }) {
  const store = await freshDatabase(source, 'open-internet-4-anonymous');
  const token = mintKey(build, store.db);
  const server = await startServer(build, store.db);
  const rss = rssSampler(server.pid);
  const path = '/openapi.json';
  const victimPath = '/api/v1/workers?limit=10';
  try {
    const aloneSeconds = 10;
    const victim = tokenHolder(server.port, victimPath, token);
    await sleep(aloneSeconds * 1000);
    const before = await snapshot(server, store);
    log(`4: ${connections} connections read ${path} without a token for ${seconds} s`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const byStatus = {};
    let bytes = 0;
    let running = true;
    const sockets = new WeakSet();
    const socketsOpened = { n: 0 };
    const onSocket = (socket) => {
      if (sockets.has(socket)) return;
      sockets.add(socket);
      socketsOpened.n++;
    };
    const floodFrom = Date.now();
    const attackers = Array.from({ length: connections }, async () => {
      while (running) {
        const res = await request(agent, server.port, {
          path,
          discard: true,
          onSocket,
        });
        const status = res.status || `error ${res.error}`;
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        bytes += res.bytes ?? 0;
        if (res.status === 0) await sleep(10);
      }
    });
    await sleep(seconds * 1000);
    running = false;
    await Promise.all(attackers);
    const floodTo = Date.now();
    agent.destroy();
    await sleep(1000);
    await victim.stop();
    const after = await snapshot(server, store);
    const answered = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return {
      attack: '4: anonymous reading flood',
      flood: {
        connections,
        path,
        seconds: round((floodTo - floodFrom) / 1000),
        requests: answered,
        perSecond: round(answered / ((floodTo - floodFrom) / 1000)),
        byStatus,
        connectionsOpened: socketsOpened.n,
        mbRead: round(bytes / MB),
      },
      victim: {
        path: victimPath,
        byStatus: victim.byStatus,
        alone: victim.seen.summary(-Infinity, floodFrom),
        duringFlood: victim.seen.summary(floodFrom, floodTo),
      },
      rssMb: {
        before: before.rssMb,
        peak: rss.peak(floodFrom, floodTo),
        after: after.rssMb,
      },
      serverLog: server.log,
    };
  } finally {
    rss.stop();
    await server.stop();
    await store.remove();
  }
}
