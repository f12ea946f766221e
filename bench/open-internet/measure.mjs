// What the server holds: its database's size, its authorization records, its memory.
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { processMemory } from '../lib.mjs';
import { MB, round } from './common.mjs';
import { pgQuery, SQLITE_FILES } from './databases.mjs';
import { request } from './http.mjs';

export async function databaseSize(store) {
  if (store.kind === 'sqlite') {
    const files = {};
    let total = 0;
    for (const suffix of SQLITE_FILES) {
      const file = `${store.db}${suffix}`;
      if (!existsSync(file)) continue;
      const size = statSync(file).size;
      files[basename(file)] = size;
      total += size;
    }
    return { bytes: total, files };
  }
  const rows = await pgQuery(store.db, 'SELECT pg_database_size(current_database()) AS bytes');
  return { bytes: Number(rows[0].bytes) };
}

/** The authorization server's records by kind (oidc-provider's model): how many, payload bytes. */
export async function oauthRecords(store) {
  const sql =
    'SELECT model, COUNT(*) AS n, SUM(LENGTH(payload)) AS bytes FROM oauth_records GROUP BY model ORDER BY model';
  try {
    let rows;
    if (store.kind === 'sqlite') {
      const file = existsSync(`${store.db}-oauth`) ? `${store.db}-oauth` : store.db;
      const sqlite = new Database(file, {
        readonly: true,
        fileMustExist: true,
      });
      try {
        sqlite.pragma('busy_timeout = 5000');
        rows = sqlite.prepare(sql).all();
      } finally {
        sqlite.close();
      }
    } else rows = await pgQuery(store.db, sql);
    return Object.fromEntries(
      rows.map((r) => [r.model, { n: Number(r.n), bytes: Number(r.bytes) }]),
    );
  } catch (error) {
    return { error: error.message };
  }
}

/** The server's V8 heap and memory outside it, in MB, from its /metrics (prom-client's). */
export async function heapOf(port) {
  const res = await request(null, port, {
    path: '/metrics',
    timeoutMs: 10_000,
  });
  if (res.status !== 200) return null;
  const value = (name) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(res.text);
    return match ? round(Number(match[1]) / MB) : null;
  };
  return {
    heapUsedMb: value('nodejs_heap_size_used_bytes'),
    heapTotalMb: value('nodejs_heap_size_total_bytes'),
    externalMb: value('nodejs_external_memory_bytes'),
  };
}

/** The server's RSS every 250 ms until stopped: the samples, their peak within a window. */
export function rssSampler(pid) {
  const samples = [];
  const take = () => {
    const m = processMemory(pid);
    if (m) samples.push({ at: Date.now(), mb: m.rssMb, anonMb: m.anonMb });
  };
  take();
  const timer = setInterval(take, 250);
  return {
    now: () => round(processMemory(pid)?.rssMb),
    peak: (from = -Infinity, to = Infinity, key = 'mb') =>
      round(Math.max(...samples.filter((s) => s.at >= from && s.at <= to).map((s) => s[key]))),
    stop: () => clearInterval(timer),
    samples,
  };
}

/** Where the server stands: RSS (and its anonymous part), heap, database size, records. */
export async function snapshot(server, store) {
  const memory = processMemory(server.pid);
  return {
    rssMb: round(memory?.rssMb),
    anonMb: round(memory?.anonMb),
    ...(await heapOf(server.port)),
    db: await databaseSize(store),
    records: await oauthRecords(store),
  };
}

export const growthMb = (before, after) => round((after.db.bytes - before.db.bytes) / MB, 2);

/** The records' payloads added between two snapshots, all kinds, in KB. */
export function recordPayloadKbAdded(before, after) {
  const sum = (records) =>
    Object.values(records).reduce(
      (total, r) => total + (typeof r.bytes === 'number' ? r.bytes : 0),
      0,
    );
  return round((sum(after.records) - sum(before.records)) / 1024);
}

/** Records of each kind added between two snapshots. */
export function recordsAdded(before, after) {
  const added = {};
  for (const [model, { n }] of Object.entries(after.records))
    if (typeof n === 'number') added[model] = n - (before.records[model]?.n ?? 0);
  return added;
}
