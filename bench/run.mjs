// `npm run bench [-- --quick]`: throughput and latency of the service against a minimal baseline
// measured in the same run, on the medium seed, then reports, imports, the many-timesheets bulk
// load against a hand insert, and into PostgreSQL against a hand COPY (bench/bulk-load.mjs), loads (bench/loads.mjs:
// imports into a copy while a server runs on it; `--quick`: 1 and 10,000 rows only), deletions and
// erasure (bench/deletions.mjs), an OAuth access token against an access key (bench/oauth.mjs),
// the access trail on against off and "who saw this worker" over 10 million events
// (bench/audit-trail.mjs, bench/audit-worker.mjs), webhook delivery (bench/webhooks.mjs), and the
// OData feed against REST (bench/odata.mjs).
// Writes bench/results/<ISO date-time>.json.
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
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
} from './lib.mjs';
import { printBulkLoadTable } from './bulk-load.mjs';
import { printLoadsTable } from './loads.mjs';
import { printOAuthTable } from './oauth.mjs';
import { printAuditTrailTable } from './audit-trail.mjs';
import { printAuditWorkerTable } from './audit-worker.mjs';
import { printWebhooksTable } from './webhooks.mjs';
import { printODataTable } from './odata.mjs';
import { TYPICAL_QUERIES } from './typical-reports.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scale: { type: 'string', default: 'medium' },
    db: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '10' },
  },
});
const QUICK = values.quick;
const SECONDS = Number(values.seconds ?? (QUICK ? 3 : 10));
const CONNECTIONS = Number(values.connections);
const REPORT_RUNS = QUICK ? 7 : 21;
const SOAK_SECONDS = QUICK ? 0 : 60;
const SEED = benchSeed(values.scale);
values.db ??= benchDb(values.scale);

/** Runs another benchmark script of this folder and returns the JSON it writes. */
function runBench(script, args, name = script) {
  const out = `bench/data/${name}.json`;
  const result = spawnSync(process.execPath, [`bench/${script}.mjs`, ...args, '--out', out], {
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`bench/${script}.mjs failed`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

function start(args, env = {}) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

/** Resident memory of a process, sampled while the benchmark runs. */
function rssSampler(pid) {
  const samples = [];
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      samples.push({ at: Date.now(), mb: kb / 1024 });
    } catch {
      // process gone
    }
  };
  const timer = setInterval(read, 250);
  read();
  return {
    samples,
    stop: () => clearInterval(timer),
    peak: () => Math.max(...samples.map((s) => s.mb)),
    peakHwm: () => {
      try {
        return (
          Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) /
          1024
        );
      } catch {
        return 0;
      }
    },
  };
}

/** One autocannon run of this benchmark's length and connections. */
const load = (base, spec, seconds = SECONDS) =>
  timedLoad(base, spec, { seconds, connections: CONNECTIONS });

const REQUEST_ID_MARK = '"request_id":"@@"';

/** A service answer's body with its request id replaced by the mark the baseline fills in. */
async function template(response) {
  const body = await response.text();
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${body.slice(0, 200)}`);
  const id = response.headers.get('x-request-id');
  return body.replace(`"request_id":"${id}"`, REQUEST_ID_MARK);
}

/** The bodies the baseline sends, by its URL: the service's answers to the same requests. */
async function captureBodies(base, auth, ids) {
  const bodies = {};
  const get = (path) => fetch(`${base}${path}`, { headers: auth });
  bodies['/api/v1/workers'] = await template(await get('/api/v1/workers?limit=50'));
  for (const [resource, list] of Object.entries(ids))
    for (const id of list) {
      const path = `/api/v1/${resource}/item?id=${encodeURIComponent(id)}`;
      bodies[path] = await template(await get(path));
    }
  for (const [name, body] of Object.entries(TYPICAL_QUERIES)) {
    const response = await fetch(`${base}/api/v1/reports/query`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    bodies[`/raw/report?name=${encodeURIComponent(name)}`] = await template(response);
  }
  return bodies;
}

/**
 * True when the uncached service and the honest baseline send the same bytes for a page of
 * workers and for twenty of them, but for the request id and the sealed cursor (random in each).
 */
async function sameAnswers(serviceBase, honestBase, auth, workers) {
  const unsealed = (response) =>
    template(response).then((body) => body.replace(/"nextCursor":"[^"]+"/, '"nextCursor":"@@"'));
  const paths = [
    '/api/v1/workers?limit=50',
    ...workers.slice(0, 20).map((id) => `/api/v1/workers/item?id=${encodeURIComponent(id)}`),
  ];
  for (const path of paths) {
    const [a, b] = await Promise.all(
      [serviceBase, honestBase].map((base) =>
        fetch(`${base}${path}`, { headers: auth }).then(unsealed),
      ),
    );
    if (a !== b) return false;
  }
  return true;
}

/** True when the service and the baseline send bodies of the same bytes but for the request id. */
async function compareBodies(serviceBase, baselineBase, auth, workerId) {
  const path = `/api/v1/workers/item?id=${encodeURIComponent(workerId)}`;
  const [a, b] = await Promise.all([
    fetch(`${serviceBase}${path}`, { headers: auth }).then(template),
    fetch(`${baselineBase}${path}`).then(template),
  ]);
  return a === b;
}

async function main() {
  const seedFigures = ensureSeeded(values.db, SEED);
  const db = new Database(values.db, { readonly: true });
  const sample = (sql) =>
    db
      .prepare(sql)
      .all()
      .map((r) => r.id);
  const workers = sample(
    `SELECT id FROM workers WHERE workspace_id = 'ws_business' ORDER BY random() LIMIT 500`,
  );
  const timesheets = sample(
    `SELECT id FROM timesheets WHERE workspace_id = 'ws_business' ORDER BY random() LIMIT 500`,
  );
  const invoices = sample(
    `SELECT id FROM invoices WHERE workspace_id = 'ws_business' ORDER BY random() LIMIT 500`,
  );

  const token = mintToken(values.db, 'ws_business');
  const auth = { authorization: `Bearer ${token}` };
  const [servicePort, baselinePort, floorPort, uncachedPort, honestPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const service = spawnServer(values.db, servicePort, { env: { LOG_LEVEL: 'warn' } });
  // The same service with its caches off: what a first request (or every request on PostgreSQL,
  // which caches no whole answers) costs.
  const uncached = spawnServer(values.db, uncachedPort, {
    env: { VMS_READ_CACHE: 'off', LOG_LEVEL: 'warn' },
  });
  const uncachedBase = `http://127.0.0.1:${uncachedPort}`;
  const serviceBase = `http://127.0.0.1:${servicePort}`;
  const baselineBase = `http://127.0.0.1:${baselinePort}`;
  const floorBase = `http://127.0.0.1:${floorPort}`;
  const honestBase = `http://127.0.0.1:${honestPort}`;
  let baseline;
  let floor;
  let honest;
  try {
    await waitFor(`${serviceBase}/healthz`);
    await waitFor(`${uncachedBase}/healthz`);
    // The baseline sends the service's own bodies (a fresh request id in each): capture them.
    const bodiesFile = 'bench/data/baseline-bodies.json';
    writeFileSync(
      bodiesFile,
      JSON.stringify(await captureBodies(serviceBase, auth, { workers, timesheets, invoices })),
    );
    baseline = start(['bench/baseline-server.mjs', values.db, String(baselinePort), bodiesFile]);
    await waitFor(`${baselineBase}/api/v1/workers`);
    // The same handler behind a bare Fastify route: how much of the gap is the framework's own.
    floor = start([
      'bench/baseline-server.mjs',
      values.db,
      String(floorPort),
      bodiesFile,
      'fastify',
    ]);
    await waitFor(`${floorBase}/api/v1/workers`);
    const sameBytes = await compareBodies(serviceBase, baselineBase, auth, workers[0]);
    // The uncached answers' yardstick: the same rows read and the same bytes made per request.
    honest = start(['bench/uncached-baseline-server.mjs', values.db, String(honestPort)]);
    await waitFor(`${honestBase}/healthz`);
    const honestSameBytes = await sameAnswers(uncachedBase, honestBase, auth, workers);
    const rss = rssSampler(service.pid);
    const itemPath = (prefix, ids) => (i) =>
      `${prefix}?id=${encodeURIComponent(ids[i % ids.length])}`;
    const mcpBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_workers', arguments: { limit: 50 } },
    });
    const json = { 'content-type': 'application/json' };
    const workloads = [
      {
        name: 'list_workers (page of 50)',
        honest: true,
        service: { path: '/api/v1/workers?limit=50', headers: auth },
        baseline: { path: '/api/v1/workers' },
      },
      {
        name: 'get_worker',
        honest: true,
        service: {
          path: '/api/v1/workers/item',
          pick: itemPath('/api/v1/workers/item', workers),
          headers: auth,
        },
        baseline: { path: '/api/v1/workers/item', pick: itemPath('/api/v1/workers/item', workers) },
      },
      {
        name: 'get_invoice',
        service: {
          path: '/api/v1/invoices/item',
          pick: itemPath('/api/v1/invoices/item', invoices),
          headers: auth,
        },
        baseline: {
          path: '/api/v1/invoices/item',
          pick: itemPath('/api/v1/invoices/item', invoices),
        },
      },
      {
        name: 'get_timesheet',
        service: {
          path: '/api/v1/timesheets/item',
          pick: itemPath('/api/v1/timesheets/item', timesheets),
          headers: auth,
        },
        baseline: {
          path: '/api/v1/timesheets/item',
          pick: itemPath('/api/v1/timesheets/item', timesheets),
        },
      },
      ...Object.entries(TYPICAL_QUERIES).map(([name, body]) => ({
        name: `run_semantic_query (a repeat, cached): ${name}`,
        service: {
          method: 'POST',
          path: '/api/v1/reports/query',
          body: JSON.stringify(body),
          headers: { ...auth, ...json },
        },
        baseline: { path: `/raw/report?name=${encodeURIComponent(name)}` },
      })),
      {
        name: 'MCP tools/call list_workers over HTTP',
        floor: false,
        ofRestList: true,
        service: {
          method: 'POST',
          path: '/mcp',
          body: mcpBody,
          headers: { ...auth, ...json, accept: 'application/json, text/event-stream' },
        },
        baseline: { path: '/api/v1/workers' },
      },
    ];
    const results = [];
    for (const w of workloads) {
      log(`load: ${w.name}`);
      const s = await load(serviceBase, w.service);
      const b = await load(baselineBase, w.baseline);
      const f = w.floor === false ? null : await load(floorBase, w.baseline);
      const u = await load(uncachedBase, w.service);
      const hb = w.honest ? await load(honestBase, w.service) : null;
      results.push({
        name: w.name,
        service: s,
        baseline: b,
        ratio: round(s.rps / b.rps, 2),
        ...(w.ofRestList ? { ofRestList: round(s.rps / results[0].service.rps, 2) } : {}),
        fastifyFloor: f && { ...f, ratio: round(f.rps / b.rps, 2) },
        uncached: { ...u, ratio: round(u.rps / b.rps, 2) },
        ...(hb ? { honest: { ...hb, uncachedRatio: round(u.rps / hb.rps, 2) } } : {}),
      });
    }

    log('reports: columnar copy, row store, hand-written SQL, cached repeats');
    const reportLatency = runBench('reports', ['--db', values.db, '--runs', String(REPORT_RUNS)]);
    log('import: a generated file of time entries');
    const importFigures = runBench('import', ['--rows', QUICK ? '50000' : '200000']);
    log('bulk load: new timesheets with their entries into the small seed, against a hand insert');
    const bulkLoad = runBench('bulk-load', ['--timesheets', QUICK ? '10000' : '100000']);
    const { postgresBinaries } = await import('../dist/test/support/pg-cluster.js');
    let bulkLoadPg = null;
    if (postgresBinaries()) {
      log('bulk load into PostgreSQL, against a hand-written COPY of the same files');
      bulkLoadPg = runBench(
        'bulk-load',
        ['--pg', '--timesheets', QUICK ? '10000' : '100000'],
        'bulk-load-pg',
      );
    } else log('bulk load into PostgreSQL: skipped, PostgreSQL binaries not found');
    log('loads: imports into a copy of the database while a server runs on it; a feed export');
    const loads = runBench('loads', [
      '--scale',
      values.scale,
      '--db',
      values.db,
      ...(QUICK ? ['--rows', '1,10000'] : []),
    ]);
    log(
      'deletions: timesheets holding 10,000 entries deleted, and a worker erased, a server running',
    );
    const deletions = runBench('deletions', ['--scale', values.scale, '--db', values.db]);
    log('oauth: an OAuth access token against an access key, an identity provider beside');
    const oauth = runBench('oauth', ['--db', values.db, ...(QUICK ? ['--quick'] : [])]);
    log('audit trail: throughput with the access trail on against off, cached and uncached');
    const auditTrail = runBench('audit-trail', [
      '--db',
      values.db,
      ...(QUICK ? ['--seconds', '2', '--rounds', '1'] : []),
    ]);
    log('audit worker: who saw a worker, over a trail of 10,000,000 events (1,000,000 quick)');
    const auditWorker = runBench('audit-worker', QUICK ? ['--events', '1000000'] : []);
    log(
      'webhooks: from an import exiting to a receiver; 100 subscriptions with one dead; 40 dead and a healthy one',
    );
    log('odata: a 1,000-row page against REST, TimeEntries to its end, $metadata (issue 58)');
    const odata = runBench('odata', [
      '--db',
      values.db,
      '--scale',
      values.scale,
      ...(QUICK ? ['--quick'] : []),
    ]);
    const webhooks = runBench('webhooks', [
      '--scale',
      values.scale,
      '--db',
      values.db,
      ...(QUICK ? ['--runs', '6', '--dead-runs', '2'] : []),
    ]);

    let soak = null;
    if (SOAK_SECONDS > 0) {
      log(`soak: list_workers for ${SOAK_SECONDS} s, watching memory`);
      const from = Date.now();
      await load(serviceBase, workloads[0].service, SOAK_SECONDS);
      const during = rss.samples.filter((s) => s.at >= from);
      const firstTen = during.filter((s) => s.at < from + 10_000).map((s) => s.mb);
      const lastTen = during
        .filter((s) => s.at >= from + (SOAK_SECONDS - 10) * 1000)
        .map((s) => s.mb);
      soak = {
        seconds: SOAK_SECONDS,
        rssFirst10sMb: round(Math.max(...firstTen)),
        rssLast10sMb: round(Math.max(...lastTen)),
      };
    }
    rss.stop();
    const peakRssMb = round(Math.max(rss.peak(), rss.peakHwm()));
    const output = {
      date: new Date().toISOString(),
      machine: machine(),
      quick: QUICK,
      deletions,
      secondsPerWorkload: SECONDS,
      connections: CONNECTIONS,
      seed: { ...SEED, ...seedFigures },
      reportLatency,
      import: importFigures,
      bulkLoad,
      bulkLoadPg,
      loads,
      oauth,
      auditTrail,
      auditWorker,
      webhooks,
      odata,
      baselineSendsSameBytes: sameBytes,
      honestBaselineSendsSameBytes: honestSameBytes,
      workloads: results,
      peakRssMb,
      soak,
    };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/${output.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
    printTable(output);
    console.log(`\nwritten to ${file}`);
  } finally {
    service.kill('SIGTERM');
    baseline?.kill('SIGTERM');
    floor?.kill('SIGTERM');
    honest?.kill('SIGTERM');
    uncached.kill('SIGTERM');
    db.close();
  }
}

function printTable({
  odata,
  workloads,
  reportLatency,
  seed,
  import: imported,
  bulkLoad,
  bulkLoadPg,
  loads,
  oauth,
  auditTrail,
  auditWorker,
  webhooks,
  peakRssMb,
  soak,
}) {
  const pad = (x, n) => String(x).padEnd(n);
  const padl = (x, n) => String(x).padStart(n);
  console.log(
    `\n${pad('workload', 58)}${padl('rps', 9)}${padl('p50', 6)}${padl('p99', 6)} | ${padl('base rps', 9)}${padl('p50', 6)}${padl('p99', 6)} | ${padl('ratio', 6)} | ${padl('uncached', 8)} | ${padl('bare Fastify', 12)} | ${padl('uncached ÷ honest', 17)}`,
  );
  for (const w of workloads) {
    console.log(
      `${pad(w.name, 58)}${padl(w.service.rps, 9)}${padl(w.service.p50Ms, 6)}${padl(w.service.p99Ms, 6)} | ${padl(w.baseline.rps, 9)}${padl(w.baseline.p50Ms, 6)}${padl(w.baseline.p99Ms, 6)} | ${padl(w.ratio, 6)} | ${padl(w.uncached.ratio, 8)} | ${padl(w.fastifyFloor?.ratio ?? '-', 12)} | ${padl(w.honest ? `${w.honest.uncachedRatio} (${w.honest.rps})` : '-', 17)}${w.ofRestList ? ` (${w.ofRestList} of REST's list)` : ''}`,
    );
  }
  console.log(`\nreports on ${reportLatency.workspace} (ms):`);
  console.table(
    reportLatency.reports.map((r) => ({
      report: r.name,
      first: r.columnar.firstAfterStartMs,
      p50: r.columnar.p50Ms,
      p95: r.columnar.p95Ms,
      'engine SQL': r.columnar.compiledSqlDirectP50Ms,
      'service/engine': r.serviceOverEngine,
      rollup: r.columnar.rollup ?? '-',
      'p50 rollups off': r.columnarNoRollups?.p50Ms ?? '-',
      'engine SQL off': r.columnarNoRollups?.compiledSqlDirectP50Ms ?? '-',
      cached: r.cachedRepeat.p50Ms,
      'row store': r.rowStore.p50Ms,
      'hand DuckDB': r.handWritten.duckdbP50Ms,
      'hand SQLite': r.handWritten.sqliteP50Ms ?? '-',
    })),
  );
  if (seed) console.log(`seed: ${JSON.stringify(seed)}`);
  console.log(`import: ${JSON.stringify(imported)}`);
  printBulkLoadTable(bulkLoad);
  if (bulkLoadPg) printBulkLoadTable(bulkLoadPg);
  printLoadsTable(loads);
  printOAuthTable(oauth);
  printAuditTrailTable(auditTrail);
  printAuditWorkerTable(auditWorker);
  if (webhooks) printWebhooksTable(webhooks);
  if (odata) printODataTable(odata);
  console.log(
    `\npeak RSS of the service: ${peakRssMb} MB${soak ? `; over a ${soak.seconds} s soak: ${soak.rssFirst10sMb} MB in the first 10 s, ${soak.rssLast10sMb} MB in the last 10 s` : ''}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
