// Issue 46: "who saw this worker" over a trail of 10 million events answers within a second
// (DESIGN §4.17). `node bench/audit-worker.mjs [--events N] [--workers N] [--db file] [--out
// file.json]` (default 10,000,000 events over 10,000 workers, bench/data/audit-<N>.db, results in
// bench/results/audit-worker-<ISO date-time>.json); bench/run.mjs runs it with fewer events when
// quick.
// The trail is built once per size (reused while its marker says the same size) with the
// product's own write path: a `tiny` seed, then the store's `appendAuditEvents` in batches of
// events made as the trail makes them (canonical JSON, each hashed onto the one before). The mix
// is a day of an integrator and its people: half gets of one record (a worker with its name, a
// timesheet), a third list pages revealing 1-5 workers, the rest reports and the catalog
// (nothing revealed); which workers an event reveals is skewed, so a few are seen far more often
// than most (the busiest about ten times the median). Timed, each five times (the median): the
// whole `vms-read audit worker --json` command for the median worker and the busiest one, Node's
// start included, with how many events it printed; its store query alone in this process; and
// the first page of `list_audit_events?worker=` through a server on the database.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { canonicalEvent, chainStart, eventHash, workersOf } from '../dist/src/audit/event.js';
import { auditEvents } from '../dist/src/admin/audit.js';
import { openStore } from '../dist/src/store/open-store.js';
import {
  CLI,
  commandRun,
  cli,
  freePort,
  log,
  machine,
  round,
  spawnServer,
  waitFor,
  writeFormatted,
} from './lib.mjs';

/** Run, not imported for its table by bench/run.mjs (whose command line is not this one's). */
const RUN_AS_SCRIPT = import.meta.url === pathToFileURL(process.argv[1]).href;
const { values } = parseArgs({
  args: RUN_AS_SCRIPT ? process.argv.slice(2) : [],
  options: {
    events: { type: 'string', default: '10000000' },
    workers: { type: 'string', default: '10000' },
    db: { type: 'string' },
    out: { type: 'string' },
  },
});
const EVENTS = Number(values.events);
const WORKERS = Number(values.workers);
const WS = 'ws_business';
values.db ??= `bench/data/audit-${EVENTS}.db`;
const BATCH = 5000;
const RUNS = 5;
const DAY_MS = 86_400_000;

/** A small deterministic generator (mulberry32), so two builds of one size are the same trail. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const workerId = (n) => `wrk_bench_${String(n).padStart(6, '0')}`;

/** The n-th event of the trail, as the trail makes it (ids only). */
function eventOfIndex(n, next, from) {
  const at = from + Math.floor((n / EVENTS) * 365 * DAY_MS);
  // Skewed: a worker's share falls with its number (the busiest is worker 0).
  const pick = () => workerId(Math.floor(WORKERS * next() ** 1.3));
  const kind = next();
  let operation;
  let revealed = [];
  let report;
  if (kind < 0.5) {
    const worker = pick();
    if (next() < 0.5) {
      operation = 'get_worker';
      revealed = [{ type: 'worker', id: worker, worker, personalData: true }];
    } else {
      operation = 'get_timesheet';
      revealed = [{ type: 'timesheet', id: `ts_bench_${n}`, worker }];
    }
  } else if (kind < 0.83) {
    operation = 'list_timesheets';
    const count = 1 + Math.floor(next() * 5);
    revealed = Array.from({ length: count }, (_, i) => ({
      type: 'timesheet',
      id: `ts_bench_${n}_${i}`,
      worker: pick(),
    }));
  } else if (kind < 0.95) {
    operation = 'run_semantic_query';
    report = { query: { metrics: ['spend'], dimensions: ['supplier'] }, rows: 12 };
  } else operation = 'list_catalog';
  const event = {
    at,
    requestId: `req_bench_${n}`,
    workspace: WS,
    caller: { kind: 'access_key', keyId: `tok_bench_${n % 40}` },
    role: 'staff',
    worker: null,
    supplier: null,
    address: `203.0.113.${n % 250}`,
    userAgent: 'bench/1.0',
    transport: n % 7 === 0 ? 'mcp' : 'rest',
    operation,
    params: {},
    status: 200,
    code: null,
    revealed,
  };
  if (report) event.report = report;
  return event;
}

/** A revealed record with its keys in canonical order (id, personalData, type, worker). */
const sortedRecord = (r) =>
  Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Builds the trail of EVENTS events into the side file of a tiny seed; its seconds and size. */
async function buildTrail() {
  const marker = `${values.db}.trail.json`;
  const wanted = JSON.stringify({ events: EVENTS, workers: WORKERS });
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted && existsSync(values.db))
    return JSON.parse(readFileSync(`${values.db}.built.json`, 'utf8'));
  for (const suffix of ['', '-wal', '-shm', '-audit', '-audit-wal', '-audit-shm', '-oauth'])
    rmSync(`${values.db}${suffix}`, { force: true });
  cli(['seed', '--db', values.db, '--scale', 'tiny', '--seed', '1', '--as-of', '2026-06-30']);
  const store = await openStore(values.db);
  const records = store.auditTrail();
  const chainId = 'chain_bench';
  await records.startAuditChain({
    chainId,
    startedAt: Date.now(),
    anchor: chainStart(chainId),
    firstSeq: 1,
  });
  const next = random(46);
  const from = Date.parse('2025-07-01T00:00:00Z');
  let last = chainStart(chainId);
  const started = performance.now();
  for (let start = 0; start < EVENTS; start += BATCH) {
    const batch = [];
    for (let n = start; n < Math.min(EVENTS, start + BATCH); n++) {
      const event = eventOfIndex(n, next, from);
      const json = canonicalEvent(event);
      const hash = eventHash(last, chainId, n + 1, json);
      batch.push({
        chainId,
        seq: n + 1,
        at: event.at,
        workspaceId: WS,
        clientId: null,
        operation: event.operation,
        event: json,
        prev: last,
        hash,
        // The set of records it revealed, as the trail digests it (src/audit/event.ts).
        revealedSet:
          event.revealed.length === 0
            ? null
            : createHash('sha256')
                .update(JSON.stringify(event.revealed.map(sortedRecord)))
                .digest('base64url')
                .slice(0, 22),
        workers: workersOf(event),
      });
      last = hash;
    }
    await records.appendAuditEvents(batch);
    if (start % 1_000_000 === 0) log(`audit worker: ${start.toLocaleString()} events written`);
  }
  await store.close();
  const built = {
    seconds: round((performance.now() - started) / 1000),
    trailFileMb: round(statSync(`${values.db}-audit`).size / 2 ** 20),
  };
  writeFileSync(`${values.db}.built.json`, JSON.stringify(built));
  writeFileSync(marker, wanted);
  return built;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The whole command, Node's start included: its median milliseconds and the events it printed. */
function timeCommand(worker) {
  const times = [];
  let lines = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const command = commandRun(CLI, [
      'audit',
      'worker',
      '--db',
      values.db,
      '--workspace',
      WS,
      '--worker',
      worker,
      '--json',
    ]);
    const result = spawnSync(process.execPath, command.args, {
      encoding: 'utf8',
      maxBuffer: 1024 * 2 ** 20,
      env: command.env,
    });
    times.push(performance.now() - t0);
    if (result.status !== 0) throw new Error(result.stderr);
    lines = result.stdout.split('\n').filter(Boolean).length;
  }
  return { ms: round(median(times)), events: lines };
}

/** The command's store reading alone (every event of the worker, parsed), in this process. */
async function timeQuery(store, worker) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    let n = 0;
    for await (const event of auditEvents(store, { workspaceId: WS, workerId: worker }))
      n += event ? 1 : 0;
    times.push(performance.now() - t0);
  }
  return round(median(times));
}

/** The API's first page of the worker's trail (50 events), through a server. */
async function timeApi(workers) {
  const port = await freePort();
  const server = spawnServer(values.db, port, {
    env: { LOG_LEVEL: 'warn', VMS_READ_AUDIT: 'off' },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/healthz`, 60);
    const token = mintTokenWith('read:audit');
    const out = {};
    for (const [name, worker] of Object.entries(workers)) {
      const times = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        const response = await fetch(`${base}/api/v1/audit-events?worker=${worker}&limit=50`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const body = await response.json();
        times.push(performance.now() - t0);
        if (response.status !== 200 || body.data.items.length === 0)
          throw new Error(`list_audit_events: ${response.status}`);
      }
      out[name] = round(median(times));
    }
    return out;
  } finally {
    server.kill('SIGTERM');
  }
}

/** A staff token holding read:audit besides every read scope. */
function mintTokenWith(extra) {
  return cli([
    'token',
    'create',
    '--db',
    values.db,
    '--workspace',
    WS,
    '--role',
    'staff',
    '--scopes',
    `read:program,read:financial,read:workforce,read:pii,${extra}`,
  ]).trim();
}

async function main() {
  log(`audit worker: a trail of ${EVENTS.toLocaleString()} events`);
  const built = await buildTrail();
  // The busiest worker, and the median one (by how often the skew picks it).
  const store = await openStore(values.db);
  const workers = { busiest: workerId(0), median: workerId(Math.floor(WORKERS / 2)) };
  const results = {};
  for (const [name, worker] of Object.entries(workers)) {
    const command = timeCommand(worker);
    results[name] = { worker, ...command, storeQueryMs: await timeQuery(store, worker) };
  }
  await store.close();
  const api = await timeApi(workers);
  for (const name of Object.keys(workers)) results[name].apiFirstPageMs = api[name];
  const output = {
    date: new Date().toISOString(),
    machine: machine(),
    events: EVENTS,
    workers: WORKERS,
    build: built,
    target: '`audit worker` over 10 million events within 1,000 ms',
    results,
  };
  const file = values.out ?? `bench/results/audit-worker-${output.date.replace(/[:.]/g, '-')}.json`;
  await writeFormatted(file, output);
  printAuditWorkerTable(output);
  console.log(`\nwritten to ${file}`);
}

export function printAuditWorkerTable({ events, build, results }) {
  console.log(
    `\naudit worker over ${events.toLocaleString()} events (trail built in ${build.seconds} s, ${build.trailFileMb} MB):`,
  );
  console.table(
    Object.entries(results).map(([name, r]) => ({
      worker: name,
      'events printed': r.events,
      'command ms': r.ms,
      'store query ms': r.storeQueryMs,
      'API first page ms': r.apiFirstPageMs,
    })),
  );
}

if (RUN_AS_SCRIPT)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
