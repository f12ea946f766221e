// Issue 46: what the access trail costs (DESIGN §4.17: with it on, throughput at least 0.9× of it
// off, cached and uncached, for lists, gets, a report and MCP tools/call).
// `node bench/audit-trail.mjs [--db file] [--seconds N] [--rounds N] [--out file.json]` (default
// bench/results/audit-trail-<ISO date-time>.json, the medium seed); bench/run.mjs runs it.
// Four servers over one database: the trail on (the product's default) and off
// (VMS_READ_AUDIT=off), each with its answer caches on (the default) and off (VMS_READ_CACHE=off:
// every request reads its rows, as on PostgreSQL). For each workload and cache mode the two
// servers are loaded in turn, `rounds` times each, the round's first server alternating; a
// figure is the median of its rounds, the ratio on ÷ off of the medians. Beside rps, each
// server's CPU time per request (user and system, all its threads, from /proc): what a request
// costs it whatever the load generator on the same cores costs. After the runs, the trail-on
// servers' events are counted in the trail (a run that wrote nothing would measure nothing).
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  mcpListWorkers,
  benchDb,
  benchSeed,
  ensureSeeded,
  freePort,
  log,
  machine,
  mintToken,
  round,
  spawnServer,
  timedLoad,
  waitFor,
  writeFormatted,
} from './lib.mjs';
import { TYPICAL_QUERIES } from './typical-reports.mjs';

/** Run, not imported for its table by bench/run.mjs (whose command line is not this one's). */
const RUN_AS_SCRIPT = import.meta.url === pathToFileURL(process.argv[1]).href;
const { values } = parseArgs({
  args: RUN_AS_SCRIPT ? process.argv.slice(2) : [],
  options: {
    db: { type: 'string' },
    scale: { type: 'string', default: 'medium' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    out: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
values.db ??= benchDb(values.scale);

/** One timed run against one server: rps, latency, and the server's CPU time per request. */
const load = (base, pid, workload) =>
  timedLoad(base, workload, {
    seconds: SECONDS,
    connections: CONNECTIONS,
    pid,
    countFailures: true,
  });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Events in the trail's side file (SQLite: `<db>-audit`). */
function eventsInTrail(db) {
  const file = `${db}-audit`;
  if (!existsSync(file)) return 0;
  const trail = new Database(file, { readonly: true });
  try {
    return trail.prepare('SELECT count(*) AS n FROM audit_events').get().n;
  } finally {
    trail.close();
  }
}

async function main() {
  const seed = ensureSeeded(values.db, benchSeed(values.scale));
  const db = new Database(values.db, { readonly: true });
  const ids = (table) =>
    db
      .prepare(
        `SELECT id FROM ${table} WHERE workspace_id = 'ws_business' ORDER BY random() LIMIT 500`,
      )
      .all()
      .map((r) => r.id);
  const workers = ids('workers');
  const timesheets = ids('timesheets');
  db.close();
  const token = mintToken(values.db, 'ws_business');
  const auth = { authorization: `Bearer ${token}` };
  const json = { 'content-type': 'application/json' };
  const item = (prefix, list) => (i) => `${prefix}?id=${encodeURIComponent(list[i % list.length])}`;
  const [reportName, report] = Object.entries(TYPICAL_QUERIES)[0];
  const workloads = [
    { name: 'list_workers (page of 50)', path: '/api/v1/workers?limit=50', headers: auth },
    {
      name: 'get_worker',
      path: '/api/v1/workers/item',
      pick: item('/api/v1/workers/item', workers),
      headers: auth,
    },
    {
      name: 'get_timesheet',
      path: '/api/v1/timesheets/item',
      pick: item('/api/v1/timesheets/item', timesheets),
      headers: auth,
    },
    {
      name: `run_semantic_query: ${reportName}`,
      method: 'POST',
      path: '/api/v1/reports/query',
      body: JSON.stringify(report),
      headers: { ...auth, ...json },
    },
    { name: 'MCP tools/call list_workers', ...mcpListWorkers(auth) },
  ];
  const eventsBefore = eventsInTrail(values.db);
  const servers = [];
  for (const cache of ['cached', 'uncached'])
    for (const trail of ['on', 'off']) {
      const port = await freePort();
      const env = { LOG_LEVEL: 'warn', VMS_READ_AUDIT: trail };
      if (cache === 'uncached') env.VMS_READ_CACHE = 'off';
      const child = spawnServer(values.db, port, { env });
      servers.push({ cache, trail, child, base: `http://127.0.0.1:${port}` });
    }
  const results = [];
  try {
    for (const s of servers) await waitFor(`${s.base}/healthz`, 120);
    for (const w of workloads)
      for (const cache of ['cached', 'uncached']) {
        const pair = servers.filter((s) => s.cache === cache);
        log(`audit trail: ${w.name}, ${cache}`);
        // Warm-up, untimed: the caches and the columnar copy's first answer.
        for (const s of pair) for (let i = 0; i < 20; i++) await request(s.base, w, i);
        const runs = { on: [], off: [] };
        for (let r = 0; r < ROUNDS; r++) {
          const order = r % 2 === 0 ? pair : [...pair].reverse();
          for (const s of order) runs[s.trail].push(await load(s.base, s.child.pid, w));
        }
        const figure = (side) => ({
          // Answers not 2xx (an uncached report past the report queue's bound), all rounds.
          failed: runs[side].reduce((sum, x) => sum + x.failed, 0),
          rps: round(median(runs[side].map((x) => x.rps))),
          p99Ms: median(runs[side].map((x) => x.p99Ms)),
          cpuUsPerRequest: round(median(runs[side].map((x) => x.cpuUs))),
        });
        const on = figure('on');
        const off = figure('off');
        results.push({
          workload: w.name,
          cache,
          on,
          off,
          ratio: round(on.rps / off.rps, 2),
          cpuRatio: round(on.cpuUsPerRequest / off.cpuUsPerRequest, 2),
        });
      }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => new Promise((resolve) => s.child.once('exit', resolve))));
  }
  const output = {
    date: new Date().toISOString(),
    machine: machine(),
    db: values.db,
    seed,
    secondsPerRun: SECONDS,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    eventsWritten: eventsInTrail(values.db) - eventsBefore,
    target: 'on ÷ off ≥ 0.9 for every workload, cached and uncached',
    results,
  };
  const file = values.out ?? `bench/results/audit-trail-${output.date.replace(/[:.]/g, '-')}.json`;
  await writeFormatted(file, output);
  printAuditTrailTable(output);
  console.log(`\nwritten to ${file}`);
}

/** One untimed request of a workload (the warm-up). */
async function request(base, w, i) {
  const path = w.pick ? w.pick(i) : w.path;
  const response = await fetch(`${base}${path}`, {
    method: w.method ?? 'GET',
    headers: w.headers,
    body: w.body,
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
}

export function printAuditTrailTable({ results, eventsWritten }) {
  console.log('\nthe access trail on against off (rps, median of rounds; CPU µs per request):');
  console.table(
    results.map((r) => ({
      workload: r.workload,
      cache: r.cache,
      'on rps': r.on.rps,
      'off rps': r.off.rps,
      'on ÷ off': r.ratio,
      'on CPU µs': r.on.cpuUsPerRequest,
      'off CPU µs': r.off.cpuUsPerRequest,
      'CPU on ÷ off': r.cpuRatio,
      'failed on/off': `${r.on.failed}/${r.off.failed}`,
    })),
  );
  console.log(`events the trail-on servers wrote: ${eventsWritten}`);
}

if (RUN_AS_SCRIPT)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
