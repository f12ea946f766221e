// The server side of the loads benchmark (bench/loads.mjs): the copy of the seeded database the
// loads go into, `vms-read serve` on it, which engine answered a report (from /metrics), polling
// a report until it reflects a load, and a full export through the change feed.
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { eachLine, freePort, log as say, round, spawnServer } from './lib.mjs';

const log = (message) => say(`[loads] ${message}`);

/** How often a report asks whether the server reflects a load, and for how long at most. */
const POLL_MS = 50;
const REFLECT_LIMIT_MS = 300_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The copy

/** Files that belong to a SQLite database beside its main file. */
// With the servers' own files beside the database (the authorization server's, the access trail's).
const SIDE_FILES = ['-wal', '-shm', '-journal', '-oauth', '-oauth-wal', '-oauth-shm', '-audit'];

/**
 * Copies the seeded database (and its write-ahead log, which may hold tokens other benchmarks
 * minted) to `<name>-loads.db`, with the columnar base copies, so the server opens a copy of
 * a base rather than writing one. Whatever a previous run left there is removed first.
 */
export function copyDatabase(source) {
  const copy = source.replace(/(\.db)?$/, '-loads.db');
  removeCopy(copy);
  copyFileSync(source, copy);
  if (existsSync(`${source}-wal`) && statSync(`${source}-wal`).size > 0)
    copyFileSync(`${source}-wal`, `${copy}-wal`);
  const bases = existsSync(`${source}.facts`)
    ? readdirSync(`${source}.facts`).filter((name) => /^base-[0-9a-z]+-\d+\.duckdb$/.test(name))
    : [];
  if (bases.length > 0) mkdirSync(`${copy}.facts`);
  for (const name of bases)
    copyFileSync(join(`${source}.facts`, name), join(`${copy}.facts`, name));
  return { copy, bases };
}

export function removeCopy(copy) {
  for (const suffix of ['', ...SIDE_FILES]) rmSync(`${copy}${suffix}`, { force: true });
  rmSync(`${copy}.facts`, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// The server

/**
 * `vms-read serve` on the copy with metrics on and quota off. Its log is read for the columnar
 * copy's own lines (opened, patched, rewritten, failing), which say why a report waited.
 */
export async function startServer(db) {
  const port = await freePort();
  const child = spawnServer(db, port, {
    env: { VMS_READ_METRICS: '1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const factsLog = [];
  const exited = once(child, 'exit');
  eachLine([child.stdout, child.stderr], (line) => {
    if (!line.includes('columnar report facts')) {
      // Request lines are many; anything else the server says may explain a failure.
      if (!line.startsWith('{')) process.stderr.write(`[server] ${line}\n`);
      return;
    }
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = { msg: line };
    }
    const message = `${entry.msg}${entry.err ? `: ${entry.err.message}` : ''}`;
    factsLog.push({ at: performance.now(), message });
    log(`server: ${message}`);
  });
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid,
    factsLog,
    /** The server's peak RSS so far (MB), while it runs. */
    peakRssMb() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
      } catch {
        return null;
      }
    },
    /** SIGTERM, and SIGKILL when it has not exited after 15 s. */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Report queries run so far, by engine: the `_count` of the report duration histogram. */
async function engineCounts(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const counts = { duckdb: 0, sqlite: 0, postgres: 0 };
  for (const match of text.matchAll(
    /^vms_read_report_query_duration_seconds_count\{([^}]*)\} (\S+)$/gm,
  )) {
    const engine = /engine="([^"]+)"/.exec(match[1])?.[1];
    if (engine in counts) counts[engine] += Number(match[2]);
  }
  return counts;
}

/**
 * A report query's rows, and the engine that ran it (`cache` when none did). `variant` changes
 * the query's limit, which is part of the compiled SQL's parameters: every poll is a query the
 * result cache has not seen, so each one runs on an engine and says which.
 */
export async function askReport(server, auth, query, variant) {
  const before = await engineCounts(server.base);
  const response = await fetch(`${server.base}/api/v1/reports/query`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ query: { ...query, limit: 1000 - (variant % 990) } }),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`report: ${response.status} ${body.slice(0, 300)}`);
  const after = await engineCounts(server.base);
  const engine =
    Object.keys(after).find((name) => after[name] > before[name]) ?? /* no engine ran */ 'cache';
  return { rows: JSON.parse(body).data.rows, engine };
}

/**
 * Polls every POLL_MS until a report is right (`isRight(rows)`) and ran on DuckDB: the time from
 * `from` to that answer, the polls it took, and how many the row store answered in between.
 */
export async function untilReflected(server, auth, query, isRight, from) {
  const engines = { duckdb: 0, sqlite: 0, postgres: 0, cache: 0 };
  let polls = 0;
  let rightBeforeColumnar = null;
  // Each poll: when its answer came (ms from `from`), how long it took, its engine, right or not.
  const log = [];
  for (;;) {
    const asked = performance.now();
    const { rows, engine } = await askReport(server, auth, query, polls++);
    engines[engine]++;
    const right = isRight(rows);
    log.push([
      round(performance.now() - from, 0),
      round(performance.now() - asked, 0),
      engine,
      right,
    ]);
    if (right && rightBeforeColumnar === null && engine !== 'duckdb')
      rightBeforeColumnar = round(performance.now() - from);
    if (right && engine === 'duckdb')
      return { ms: round(performance.now() - from), polls, engines, rightBeforeColumnar, log };
    if (performance.now() - from > REFLECT_LIMIT_MS)
      return {
        ms: null,
        polls,
        engines,
        rightBeforeColumnar,
        log,
        gaveUpAfterMs: REFLECT_LIMIT_MS,
      };
    await sleep(POLL_MS);
  }
}

/**
 * The polls' log, each run of polls on one engine with one verdict as one entry: when the first
 * and the last answered (ms after the import exited), the longest one's time, and how many.
 */
export function foldPolls(log) {
  const folded = [];
  for (const [at, took, engine, right] of log) {
    const last = folded[folded.length - 1];
    if (last && last[3] === engine && last[4] === right) {
      last[1] = at;
      last[2] = Math.max(last[2], took);
      last[5]++;
    } else folded.push([at, at, took, engine, right, 1]);
  }
  return folded.map(([first, lastAt, took, engine, right, count]) => ({
    fromMs: first,
    toMs: lastAt,
    longestMs: took,
    engine,
    right,
    polls: count,
  }));
}

// ---------------------------------------------------------------------------------------------
// The export

/** The whole change feed of the workspace from the start, page after page on one connection. */
export async function exportFeed(server, auth) {
  let records = 0;
  let pages = 0;
  let bytes = 0;
  let cursor = null;
  const started = performance.now();
  for (;;) {
    const url = `${server.base}/api/v1/changes${cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`}`;
    const response = await fetch(url, { headers: auth });
    const body = await response.text();
    if (!response.ok) throw new Error(`list_changes: ${response.status} ${body.slice(0, 300)}`);
    bytes += body.length;
    const page = JSON.parse(body).data;
    records += page.items.length;
    pages++;
    if (!page.hasMore) break;
    cursor = page.nextCursor;
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    records,
    pages,
    mb: round(bytes / 2 ** 20),
    seconds: round(seconds, 2),
    recordsPerSecond: Math.round(records / seconds),
  };
}
