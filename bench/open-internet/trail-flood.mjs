// Attack 6 (issue 56): the access trail flooded. Four floods, each `seconds` long (at most 55,
// started as a UTC minute begins, so that each lies in one minute), against one
// server behind a trusted proxy (VMS_READ_TRUSTED_PROXIES=127.0.0.1) with its quota at 60 a minute:
// anonymous `POST /mcp` from one address, then from 100 (X-Forwarded-For: 198.51.100.N); a valid
// key past its quota (GET /api/v1/suppliers) from one address, then from 100. After each, once
// its last minute ended (counted refusals are written then), what the trail added: events and
// bytes (SQLite: the `-audit` file and its WAL; PostgreSQL: the trail's tables with their indexes
// and TOAST), and the same per minute of flood. SQLite's size is the file's pages in use as the
// trail's own connection sees them (its WAL included, its free pages not): the `-audit` and
// `-audit-wal` files' sizes say more about when the WAL was last checkpointed than about the trail.
import http from 'node:http';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { log, round, sleep } from './common.mjs';
import { mintKey } from './build.mjs';
import { freshDatabase, pgQuery } from './databases.mjs';
import { request } from './http.mjs';
import { startServer } from './server.mjs';

const CONNECTIONS = 32;
const MCP_PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const AUDIT_TABLES = ['audit_events', 'audit_set_workers', 'audit_chains'];

/** The trail's events and bytes on disk. */
async function trailSize(store) {
  if (store.kind === 'sqlite') {
    const file = `${store.db}-audit`;
    if (!existsSync(file)) return { events: 0, bytes: 0 };
    const db = new Database(file, { readonly: true });
    try {
      db.pragma('busy_timeout = 5000');
      const pages = (pragma) => db.pragma(pragma, { simple: true });
      const bytes = (pages('page_count') - pages('freelist_count')) * pages('page_size');
      return { events: db.prepare('SELECT COUNT(*) AS n FROM audit_events').get().n, bytes };
    } finally {
      db.close();
    }
  }
  const [row] = await pgQuery(
    store.db,
    `SELECT (SELECT COUNT(*) FROM audit_events) AS events,
       ${AUDIT_TABLES.map((t) => `pg_total_relation_size('${t}')`).join(' + ')} AS bytes`,
  );
  return { events: Number(row.events), bytes: Number(row.bytes) };
}

/** Waits until the UTC minute under way has ended, and the server has written its counts. */
async function pastMinuteEnd() {
  const now = Date.now();
  await sleep(60_000 - (now % 60_000) + 2_500);
}

/** `connections` clients sending `requestOf(i)` as fast as answers come, for `seconds`. */
async function flood(port, seconds, requestOf) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const byStatus = {};
  let sent = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        const res = await request(agent, port, { ...requestOf(sent++), discard: true });
        byStatus[res.status || 'error'] = (byStatus[res.status || 'error'] ?? 0) + 1;
        if (res.status === 0) await sleep(10);
      }
    }),
  );
  agent.destroy();
  return { requests: sent, byStatus };
}

export async function trailFloodAttack({ build, source, seconds }) {
  const store = await freshDatabase(source, 'open-internet-6-trail');
  const key = mintKey(build, store.db);
  const server = await startServer(build, store.db, {
    VMS_READ_TRUSTED_PROXIES: '127.0.0.1',
    VMS_READ_QUOTA_PER_MINUTE: '60',
  });
  const address = (i, many) => (many ? `198.51.100.${1 + (i % 100)}` : '198.51.100.1');
  const floods = {
    anonymousOneAddress: (i) => mcpPing(address(i, false)),
    anonymousHundredAddresses: (i) => mcpPing(address(i, true)),
    overQuotaOneAddress: (i) => suppliers(key, address(i, false)),
    overQuotaHundredAddresses: (i) => suppliers(key, address(i, true)),
  };
  const results = { attack: '6: the access trail flooded', quotaPerMinute: 60, floods: {} };
  try {
    await pastMinuteEnd();
    const floodSeconds = Math.min(seconds, 55);
    for (const [name, requestOf] of Object.entries(floods)) {
      const before = await trailSize(store);
      log(`6: ${name} for ${floodSeconds} s`);
      const started = Date.now();
      const sent = await flood(server.port, floodSeconds, requestOf);
      const minutes = (Date.now() - started) / 60_000;
      await pastMinuteEnd();
      const after = await trailSize(store);
      const events = after.events - before.events;
      const kb = (after.bytes - before.bytes) / 1024;
      results.floods[name] = {
        ...sent,
        seconds: round(minutes * 60),
        // The flood lay in one UTC minute: what it added is that minute's.
        eventsAdded: events,
        kbAdded: round(kb),
      };
    }
    results.serverLog = server.log;
    return results;
  } finally {
    await server.stop();
    await store.remove();
  }
}

const mcpPing = (forwardedFor) => ({
  method: 'POST',
  path: '/mcp',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-forwarded-for': forwardedFor,
  },
  body: MCP_PING,
});

const suppliers = (key, forwardedFor) => ({
  path: '/api/v1/suppliers?limit=1',
  headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': forwardedFor },
});

/** Attack 6's figures as lines. */
export function printTrailFlood(r, print) {
  if (r.error) return print(`  trailFlood: ERROR ${r.error.split('\n')[0]}`);
  print(`  ${r.attack} (quota ${r.quotaPerMinute} a minute)`);
  for (const [name, f] of Object.entries(r.floods))
    print(
      `    ${name.padEnd(26)} ${f.requests} requests ${JSON.stringify(f.byStatus)} in ${f.seconds} s: the trail's minute +${f.eventsAdded} events, +${f.kbAdded} KB`,
    );
}
