// `npm run bench [-- --quick]`: throughput and latency of the service against a minimal baseline
// measured in the same run, on the medium seed. Writes bench/results/<ISO date-time>.json.
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { CLI, cli, freePort, log } from './lib.mjs';
import { RAW_REPORTS, TYPICAL_QUERIES } from './typical-reports.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    db: { type: 'string', default: 'bench/data/medium.db' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '10' },
  },
});
const QUICK = values.quick;
const SECONDS = Number(values.seconds ?? (QUICK ? 3 : 10));
const CONNECTIONS = Number(values.connections);
const REPORT_RUNS = QUICK ? 7 : 21;
const SOAK_SECONDS = QUICK ? 0 : 60;
const SEED = { scale: 'medium', seed: '1', asOf: '2026-06-30' };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, digits = 1) => Number(x.toFixed(digits));


/** Seeds the medium database once and reuses it while the seed arguments are the same. */
function ensureDatabase() {
  const marker = `${values.db}.seed.json`;
  const wanted = JSON.stringify(SEED);
  if (existsSync(values.db) && existsSync(marker) && readFileSync(marker, 'utf8') === wanted)
    return null;
  mkdirSync('bench/data', { recursive: true });
  log(`seeding ${values.db} (scale ${SEED.scale}); reused by later runs`);
  const started = Date.now();
  cli([
    'seed',
    '--db',
    values.db,
    '--scale',
    SEED.scale,
    '--seed',
    SEED.seed,
    '--as-of',
    SEED.asOf,
    '--force',
  ]);
  writeFileSync(marker, wanted);
  return round((Date.now() - started) / 1000);
}

async function waitFor(url) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
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

/** One autocannon run; `pick` gives each request's path (and body), rotating over sample ids. */
async function load(base, { method = 'GET', path, pick, body, headers = {} }, seconds = SECONDS) {
  let i = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    headers,
    requests: [
      {
        method,
        path,
        body,
        ...(pick
          ? {
              setupRequest: (req) => {
                req.path = pick(i++);
                return req;
              },
            }
          : {}),
      },
    ],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0)
    throw new Error(`${method} ${path}: ${bad} failed of ${result.requests.total} requests`);
  return {
    rps: round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

async function main() {
  const seedSeconds = ensureDatabase();
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

  const token = cli([
    'token',
    'create',
    '--db',
    values.db,
    '--workspace',
    'ws_business',
    '--role',
    'staff',
    '--scopes',
    'read:program,read:financial,read:workforce,read:pii',
  ]).trim();
  const auth = { authorization: `Bearer ${token}` };
  const [servicePort, baselinePort] = [await freePort(), await freePort()];
  const service = start([CLI, 'serve', '--db', values.db, '--port', String(servicePort)], {
    VMS_READ_QUOTA_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
  });
  const baseline = start(['bench/baseline-server.mjs', values.db, String(baselinePort)]);
  const serviceBase = `http://127.0.0.1:${servicePort}`;
  const baselineBase = `http://127.0.0.1:${baselinePort}`;
  try {
    await Promise.all([
      waitFor(`${serviceBase}/healthz`),
      waitFor(`${baselineBase}/api/v1/workers`),
    ]);
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
        service: { path: '/api/v1/workers?limit=50', headers: auth },
        baseline: { path: '/api/v1/workers' },
      },
      {
        name: 'get_worker',
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
        name: `run_semantic_query: ${name}`,
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
      results.push({ name: w.name, service: s, baseline: b, ratio: round(s.rps / b.rps, 2) });
    }

    log('reports: single-flight latency, service over HTTP vs the raw SQL in process');
    const reports = [];
    for (const [name, body] of Object.entries(TYPICAL_QUERIES)) {
      const serviceTimes = [];
      for (let i = 0; i <= REPORT_RUNS; i++) {
        const started = performance.now();
        const response = await fetch(`${serviceBase}/api/v1/reports/query`, {
          method: 'POST',
          headers: { ...auth, ...json },
          body: JSON.stringify(body),
        });
        if (!response.ok) throw new Error(`${name}: ${response.status}`);
        await response.arrayBuffer();
        if (i > 0) serviceTimes.push(performance.now() - started);
      }
      const raw = db.prepare(RAW_REPORTS[name]);
      const rawTimes = [];
      for (let i = 0; i <= REPORT_RUNS; i++) {
        const started = performance.now();
        raw.all();
        if (i > 0) rawTimes.push(performance.now() - started);
      }
      const serviceMs = round(median(serviceTimes));
      const rawMs = round(median(rawTimes));
      reports.push({ name, serviceMs, rawMs, ratio: round(serviceMs / rawMs, 2) });
    }

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
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryGb: round(totalmem() / 2 ** 30),
        node: process.version,
      },
      quick: QUICK,
      secondsPerWorkload: SECONDS,
      connections: CONNECTIONS,
      seed: { ...SEED, seededThisRunSeconds: seedSeconds },
      workloads: results,
      reports,
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
    baseline.kill('SIGTERM');
    db.close();
  }
}

function printTable({ workloads, reports, peakRssMb, soak }) {
  const pad = (x, n) => String(x).padEnd(n);
  const padl = (x, n) => String(x).padStart(n);
  console.log(
    `\n${pad('workload', 58)}${padl('rps', 9)}${padl('p50', 6)}${padl('p99', 6)} | ${padl('base rps', 9)}${padl('p50', 6)}${padl('p99', 6)} | ${padl('ratio', 6)}`,
  );
  for (const w of workloads) {
    console.log(
      `${pad(w.name, 58)}${padl(w.service.rps, 9)}${padl(w.service.p50Ms, 6)}${padl(w.service.p99Ms, 6)} | ${padl(w.baseline.rps, 9)}${padl(w.baseline.p50Ms, 6)}${padl(w.baseline.p99Ms, 6)} | ${padl(w.ratio, 6)}`,
    );
  }
  console.log(
    `\n${pad('report', 58)}${padl('service ms', 11)}${padl('raw ms', 9)}${padl('ratio', 7)}`,
  );
  for (const r of reports)
    console.log(`${pad(r.name, 58)}${padl(r.serviceMs, 11)}${padl(r.rawMs, 9)}${padl(r.ratio, 7)}`);
  console.log(
    `\npeak RSS of the service: ${peakRssMb} MB${soak ? `; over a ${soak.seconds} s soak: ${soak.rssFirst10sMb} MB in the first 10 s, ${soak.rssLast10sMb} MB in the last 10 s` : ''}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
