// `npm run soak [-- --minutes N --scale small --db <file or postgres://url> --pg --port P]`:
// runs the real server as a child process and drives it for N minutes with mixed traffic (resource
// lists and gets with cursors followed, catalog, saved queries, MCP over HTTP, and above all report
// queries of ever new shapes), while sampling the server's RSS every second and probing /healthz
// every 100 ms on its own connection. Writes bench/results/soak-<ISO date-time>.json.
//
// Targets (goals, not tests: a MISS still exits 0): end RSS ≤ 1.2 × RSS after warm-up; end RSS
// < 300 MB on scale small; /healthz p99 < 100 ms under load. Exit 1 when the server crashes or the
// traffic cannot run.
//
// `--attacks on` (the default) runs bench/attacks.mjs' attacks (issue 35) on the server after the
// traffic, `only` instead of it, `off` not at all; then, unless `--open-internet none`, issue 44's
// and issue 56's trail flood (bench/open-internet/run.mjs: `--open-internet 1,2,3,4,6` picks
// them), each on a server of its
// own over a fresh copy of the database, once the soak's server has stopped.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { parseArgs } from 'node:util';
import {
  cli,
  ensureSeeded,
  freePort,
  log,
  machine,
  mintToken as mintTokenOf,
  processMemory,
  spawnServer,
  writeFormatted,
} from './lib.mjs';
import { runAttacks } from './attacks.mjs';
import {
  OPEN_INTERNET_ATTACKS,
  printOpenInternet,
  runOpenInternetAttacks,
} from './open-internet/run.mjs';
import { prng, shapeGenerator, valuePools, viewsOf } from './shapes.mjs';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    scale: { type: 'string', default: 'small' },
    db: { type: 'string' },
    pg: { type: 'boolean', default: false },
    port: { type: 'string' },
    concurrency: { type: 'string', default: '12' },
    seed: { type: 'string', default: '1' },
    attacks: { type: 'string', default: 'on' },
    'open-internet': { type: 'string', default: '1,2,3,4,6' },
  },
});
const MINUTES = Number(values.minutes);
const CONCURRENCY = Number(values.concurrency);
const SEED = Number(values.seed);
const SCALE = values.scale;
if (!(MINUTES > 0) || !(CONCURRENCY >= 1) || !Number.isInteger(SEED)) {
  console.error('usage: node bench/soak.mjs [--minutes N>0] [--concurrency N] [--seed INT]');
  process.exit(2);
}
if (!['on', 'off', 'only'].includes(values.attacks)) {
  console.error('--attacks: on (after the traffic, the default), off, or only (no traffic)');
  process.exit(2);
}
const OPEN_INTERNET =
  values['open-internet'] === 'none' ? [] : values['open-internet'].split(',').map(Number);
if (!OPEN_INTERNET.every((n) => OPEN_INTERNET_ATTACKS.includes(n))) {
  console.error(
    `--open-internet: the attacks of issues 44 and 56 to run, of ${OPEN_INTERNET_ATTACKS.join(',')} (default 1,2,3,4,6), or none`,
  );
  process.exit(2);
}
if (!['tiny', 'small', 'medium', 'large'].includes(SCALE)) {
  console.error('--scale: tiny, small, medium or large');
  process.exit(2);
}
if (values.pg && values.db) {
  console.error('--pg starts its own PostgreSQL: do not also give --db');
  process.exit(2);
}
const DATA_SEED = { scale: SCALE, seed: '1', asOf: '2026-06-30' };
const WORKSPACE = 'ws_business';
const TOTAL_MS = values.attacks === 'only' ? 0 : MINUTES * 60_000;
// First 30 s or 10% of the run, whichever is longer (half of a run shorter than a minute).
const WARMUP_MS = TOTAL_MS >= 60_000 ? Math.max(30_000, TOTAL_MS / 10) : TOTAL_MS / 2;
const IDLE_MS = 5_000;
const PROBE_EVERY_MS = 100;
const REQUEST_TIMEOUT_MS = 30_000;
/** Share of report queries that repeat a recent shape instead of a new one (cache hits). */
const REPEAT_SHARE = 0.05;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, digits = 1) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
const percentile = (xs, p) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

const seedArgs = (db) => [
  'seed',
  '--db',
  db,
  '--scale',
  DATA_SEED.scale,
  '--seed',
  DATA_SEED.seed,
  '--as-of',
  DATA_SEED.asOf,
  '--force',
];

/**
 * Seeds bench/data/<scale>.db once and reuses it while the seed arguments are the same: the one
 * rule of every benchmark (lib.mjs ensureSeeded), so a database `npm run bench` seeded is reused.
 */
function ensureSqlite() {
  const db = `bench/data/${SCALE}.db`;
  const started = Date.now();
  const figures = ensureSeeded(db, DATA_SEED);
  // Reused, the figures are those of the run that seeded it: this run took no time for it.
  const seconds = (Date.now() - started) / 1000;
  return { db, seededSeconds: figures && seconds >= figures.seconds / 2 ? figures.seconds : null };
}

/** A throwaway PostgreSQL cluster (the test helper), with a database seeded at --scale. */
async function throwawayPostgres() {
  const { startCluster } = await import('../dist/test/support/pg-cluster.js');
  const { default: pg } = await import('pg');
  log('starting a throwaway PostgreSQL cluster');
  const cluster = await startCluster();
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query('CREATE DATABASE soak');
  await client.end();
  const db = cluster.url.replace(/\/postgres$/, '/soak');
  log(`seeding ${db} (scale ${SCALE})`);
  const started = Date.now();
  cli(seedArgs(db));
  return { db, cluster, seededSeconds: round((Date.now() - started) / 1000) };
}

const redact = (db) => db.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

// ---------------------------------------------------------------------------------------------
// Counting

const stats = {
  byKind: {},
  byStatus: {},
  reportOutcomes: {},
  refusals: {},
  mcpToolErrors: {},
  mcpRpcErrors: 0,
  networkErrors: {},
  fiveHundreds: [],
};

function record(kind, status, ms, error) {
  const k = (stats.byKind[kind] ??= { n: 0, '2xx': 0, '4xx': 0, '5xx': 0, error: 0, ms: [] });
  k.n++;
  k.ms.push(ms);
  if (status === 0) {
    k.error++;
    stats.networkErrors[error] = (stats.networkErrors[error] ?? 0) + 1;
    stats.byStatus.error = (stats.byStatus.error ?? 0) + 1;
    return;
  }
  stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
  if (status >= 500) k['5xx']++;
  else if (status >= 400) k['4xx']++;
  else if (status >= 200 && status < 300) k['2xx']++;
}

const count = (table, key) => {
  table[key] = (table[key] ?? 0) + 1;
};

// ---------------------------------------------------------------------------------------------
// HTTP

let BASE;

/** One request over fetch's keep-alive pool; returns the status and the parsed JSON (or null). */
async function call(kind, method, path, token, body, extraHeaders = {}) {
  const started = performance.now();
  try {
    const response = await fetch(`${BASE}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extraHeaders,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    record(kind, response.status, ms);
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON (an SSE frame is handled by the MCP caller)
    }
    if (response.status >= 500 && stats.fiveHundreds.length < 20) {
      stats.fiveHundreds.push({ kind, path, status: response.status, body: text.slice(0, 300) });
    }
    return { status: response.status, json, text };
  } catch (error) {
    const name = error.name === 'TimeoutError' ? 'timeout' : (error.cause?.code ?? error.name);
    record(kind, 0, performance.now() - started, name);
    return { status: 0, json: null, text: '' };
  }
}

/** /healthz every PROBE_EVERY_MS, one at a time, on a connection of its own. */
function healthProbe(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const probes = [];
  let running = true;
  const once = () =>
    new Promise((resolve) => {
      const started = performance.now();
      let done = false;
      const finish = (status, error) => {
        if (done) return;
        done = true;
        resolve({ at: Date.now(), ms: performance.now() - started, status, error });
      };
      const req = http.get(
        { host: '127.0.0.1', port, path: '/healthz', agent, timeout: 10_000 },
        (res) => {
          res.resume();
          res.on('end', () => finish(res.statusCode));
          res.on('error', (e) => finish(0, e.message));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => finish(0, e.message));
    });
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      probes.push(await once());
      await sleep(Math.max(0, PROBE_EVERY_MS - (Date.now() - started)));
    }
  })();
  return {
    probes,
    stop: async () => {
      running = false;
      await loop;
      agent.destroy();
    },
  };
}

async function waitForHealth(child) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('server exited');
    try {
      if ((await fetch(`${BASE}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('/healthz did not answer within 60 s');
}

// ---------------------------------------------------------------------------------------------
// Traffic

const RESOURCES = [
  'workers',
  'timesheets',
  'invoices',
  'suppliers',
  'assignments',
  'expenses',
  'approval-statuses',
];
const GETTABLE = ['workers', 'timesheets', 'invoices'];

function principal(name, token, lists, gets) {
  return { name, token, lists, gets, cursors: new Map(), ids: new Map() };
}

function remember(p, resource, items) {
  if (!GETTABLE.includes(resource) || !Array.isArray(items)) return;
  const ids = p.ids.get(resource) ?? [];
  for (const item of items) {
    if (ids.length < 2000) ids.push(item.id);
    else ids[Math.floor(Math.random() * ids.length)] = item.id;
  }
  p.ids.set(resource, ids);
}

function traffic({ rng, shapes, staff, others, savedIds, onShape }) {
  const reports = { sent: 0, repeats: 0, pagesFollowed: 0, truncated: {} };
  const kindOf = (p, what) => (p === staff ? what : `${p.name}:${what}`);

  const noteReport = (res) => {
    const data = res.json?.data;
    if (res.status !== 200 || !data) return;
    count(stats.reportOutcomes, data.status);
    if (data.status === 'refused') count(stats.refusals, data.code);
    if (data.truncatedBy) count(reports.truncated, data.truncatedBy);
  };

  const post = (kind, path, body) => call(kind, 'POST', path, staff.token, body);
  const getStaff = (kind, path) => call(kind, 'GET', path, staff.token);

  const report = async () => {
    const shape = shapes.next();
    reports.sent++;
    if (shape.repeat) reports.repeats++;
    onShape(shape.key);
    const res = await post('run_semantic_query', '/api/v1/reports/query', shape.body);
    noteReport(res);
    const cursor = res.json?.data?.nextCursor;
    if (cursor && rng.next() < 0.5) {
      reports.pagesFollowed++;
      const body = { ...shape.body, cursor };
      noteReport(await post('run_semantic_query (next page)', '/api/v1/reports/query', body));
    }
  };

  const list = async (p) => {
    const resource = rng.pick(p.lists);
    const state = p.cursors.get(resource);
    const follow = Boolean(state?.cursor) && rng.next() < 0.7;
    const order = follow ? state.order : rng.next() < 0.3 ? 'desc' : 'asc';
    const limit = follow ? state.limit : rng.pick([undefined, 5, 10, 20, 50, 200]);
    const params = new URLSearchParams();
    if (limit) params.set('limit', String(limit));
    if (order === 'desc' || rng.next() < 0.2) params.set('order', order);
    if (follow) params.set('cursor', state.cursor);
    const path = `/api/v1/${resource}${params.size ? `?${params}` : ''}`;
    const res = await call(kindOf(p, `list ${resource}`), 'GET', path, p.token);
    const data = res.json?.data;
    if (data?.status === 'refused') count(stats.refusals, `list:${data.code}`);
    remember(p, resource, data?.items);
    p.cursors.set(resource, { cursor: data?.nextCursor ?? null, order, limit });
  };

  const get = async (p) => {
    const resource = rng.pick(p.gets);
    const ids = p.ids.get(resource) ?? [];
    const id = ids.length && rng.next() > 0.05 ? rng.pick(ids) : `zz_missing_${rng.int(1, 1e6)}`;
    const path = `/api/v1/${resource}/item?id=${encodeURIComponent(id)}`;
    await call(kindOf(p, `get ${resource}`), 'GET', path, p.token);
  };

  const catalog = () => getStaff('list_catalog', '/api/v1/reports/catalog');

  const savedList = async () => {
    const kind = rng.pick([null, null, 'library', 'dashboard_tile', 'briefing']);
    const params = new URLSearchParams();
    if (kind) params.set('kind', kind);
    if (rng.next() < 0.5) params.set('limit', String(rng.int(1, 50)));
    const path = `/api/v1/reports/saved-queries${params.size ? `?${params}` : ''}`;
    const res = await getStaff('list_saved_queries', path);
    const cursor = res.json?.data?.nextCursor;
    if (cursor) {
      params.set('cursor', cursor);
      await getStaff('list_saved_queries', `/api/v1/reports/saved-queries?${params}`);
    }
  };

  const savedRun = async () => {
    const path = '/api/v1/reports/saved-queries/run';
    const savedQueryId = rng.pick(savedIds);
    const res = await post('run_saved_query', path, { savedQueryId });
    noteReport(res);
    const cursor = res.json?.data?.nextCursor;
    if (cursor && rng.next() < 0.5)
      noteReport(await post('run_saved_query', path, { savedQueryId, cursor }));
  };

  let rpcId = 0;
  const mcp = async () => {
    const method = rng.weighted({ initialize: 1, 'tools/list': 1, 'tools/call': 6 });
    let params;
    let kind = `MCP ${method}`;
    if (method === 'initialize') {
      params = {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'vms-read-soak', version: '1' },
      };
    } else if (method === 'tools/list') {
      params = {};
    } else {
      const tool = rng.weighted({
        list_workers: 2,
        get_worker: 1,
        list_timesheets: 1,
        list_invoices: 1,
        list_suppliers: 1,
        list_catalog: 1,
        list_saved_queries: 1,
        run_saved_query: 1,
        run_semantic_query: 3,
      });
      kind = `MCP tools/call ${tool}`;
      let args = {};
      if (tool.startsWith('list_') && tool !== 'list_catalog' && tool !== 'list_saved_queries')
        args = { limit: rng.int(1, 20) };
      if (tool === 'get_worker')
        args = { id: rng.pick(staff.ids.get('workers') ?? ['zz_missing']) };
      if (tool === 'run_saved_query') args = { savedQueryId: rng.pick(savedIds) };
      if (tool === 'run_semantic_query') {
        const shape = shapes.next();
        reports.sent++;
        if (shape.repeat) reports.repeats++;
        onShape(shape.key);
        args = shape.body;
      }
      params = { name: tool, arguments: args };
    }
    const res = await call(
      kind,
      'POST',
      '/mcp',
      staff.token,
      { jsonrpc: '2.0', id: ++rpcId, method, params },
      { accept: 'application/json, text/event-stream' },
    );
    let message = res.json;
    if (!message && res.text.includes('data:')) {
      const line = res.text.split('\n').find((l) => l.startsWith('data:'));
      try {
        message = JSON.parse(line.slice(5));
      } catch {
        message = null;
      }
    }
    if (res.status !== 200) return;
    if (!message || message.error) stats.mcpRpcErrors++;
    else if (message.result?.isError) count(stats.mcpToolErrors, kind);
    else if (method === 'tools/call' && message.result?.structuredContent?.status === 'refused')
      count(stats.refusals, `mcp:${message.result.structuredContent.code}`);
  };

  const actions = {
    report: () => report(),
    list: () => list(staff),
    get: () => get(staff),
    other: () => {
      const p = rng.pick(others);
      return rng.next() < 0.5 ? list(p) : get(p);
    },
    catalog,
    savedList,
    savedRun,
    mcp,
  };
  const weights = {
    report: 75,
    list: 7,
    get: 5,
    other: 4,
    catalog: 1.5,
    savedList: 1.5,
    savedRun: 2,
    mcp: 4,
  };
  let stopping = false;
  const loop = async () => {
    while (!stopping) await actions[rng.weighted(weights)]();
  };
  return {
    reports,
    start: () => Array.from({ length: CONCURRENCY }, loop),
    stop: () => {
      stopping = true;
    },
  };
}

// ---------------------------------------------------------------------------------------------

function git(...args) {
  const r = spawnSync('git', args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

const mintToken = (db, role, ...binding) => mintTokenOf(db, WORKSPACE, role, ...binding);

/**
 * What the open-internet attacks copy: the SQLite file, or the PostgreSQL database (as a
 * template, through the cluster's maintenance database).
 */
function openInternetSource(db, cluster) {
  if (!db.startsWith('postgres')) return { kind: 'sqlite', db };
  const url = new URL(db);
  const admin = cluster?.url ?? Object.assign(new URL(db), { pathname: '/postgres' }).href;
  return { kind: 'postgresql', admin, name: url.pathname.slice(1) };
}

/** `vms-read serve` as a child, its log lines counted (first and last kept), its exit watched. */
function startServer(db, port) {
  const child = spawnServer(db, port, {
    env: { LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = { child, log: { lines: 0, first: [], last: [] }, crashed: null, stopping: false };
  const onLog = (chunk) => {
    for (const line of String(chunk).split('\n')) {
      if (!line.trim()) continue;
      server.log.lines++;
      if (server.log.first.length < 10) server.log.first.push(line.slice(0, 500));
      server.log.last.push(line.slice(0, 500));
      if (server.log.last.length > 10) server.log.last.shift();
    }
  };
  child.stdout.on('data', onLog);
  child.stderr.on('data', onLog);
  server.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      if (!server.stopping) server.crashed = { code, signal, at: new Date().toISOString() };
      resolve({ code, signal });
    }),
  );
  server.running = () => child.exitCode === null && child.signalCode === null;
  /** SIGTERM (the server drains and exits 0), SIGKILL if it has not exited 15 s later. */
  server.stop = async () => {
    server.stopping = true;
    const started = Date.now();
    child.kill('SIGTERM');
    let outcome = await Promise.race([server.exited, sleep(15_000).then(() => null)]);
    let stoppedBy = 'SIGTERM';
    if (!outcome) {
      child.kill('SIGKILL');
      outcome = await server.exited;
      stoppedBy = 'SIGKILL';
    }
    return {
      stoppedBy,
      ...(stoppedBy === 'SIGKILL' ? { note: 'SIGTERM did not end it within 15 s' } : {}),
      ms: Date.now() - started,
      exitCode: outcome.code,
      exitSignal: outcome.signal,
    };
  };
  return server;
}

/**
 * What the traffic needs, read through the API with the staff token: the catalog's views, a
 * worker and a supplier with invoices (for their tokens), saved queries, each categorical
 * dimension's values (for filters) and each view's span of dates.
 */
async function prepareTraffic(db, staffToken) {
  const get = async (kind, path) => {
    const res = await call(kind, 'GET', path, staffToken);
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    return res.json.data;
  };
  const views = viewsOf(await get('list_catalog', '/api/v1/reports/catalog'));
  const suppliers = await get('list suppliers', '/api/v1/suppliers?limit=50');
  const timesheets = await get('list timesheets', '/api/v1/timesheets?limit=50');
  const invoices = await get('list invoices', '/api/v1/invoices?limit=50');
  const saved = await get('list_saved_queries', '/api/v1/reports/saved-queries');
  const workerId = timesheets.items[0]?.workerId;
  const codes = new Set(invoices.items.map((i) => i.supplierRef?.value).filter(Boolean));
  const supplierId = suppliers.items.find((s) => codes.has(s.code.value))?.id;
  const savedIds = saved.items.map((s) => s.id);
  if (!workerId || !supplierId || savedIds.length === 0)
    throw new Error('could not find a worker, a supplier with invoices and saved queries');
  const staff = principal('staff', staffToken, RESOURCES, GETTABLE);
  remember(staff, 'timesheets', timesheets.items);
  remember(staff, 'invoices', invoices.items);
  const worker = principal(
    'worker',
    mintToken(db, 'worker', '--worker', workerId),
    ['workers', 'timesheets', 'assignments', 'expenses', 'approval-statuses'],
    ['workers', 'timesheets'],
  );
  const billing = principal(
    'billing_entity',
    mintToken(db, 'billing_entity', '--supplier', supplierId),
    ['invoices', 'suppliers', 'assignments', 'expenses', 'approval-statuses'],
    ['invoices'],
  );

  const rowsOf = async (query) => {
    const kind = 'run_semantic_query (preparation)';
    const res = await call(kind, 'POST', '/api/v1/reports/query', staffToken, { query });
    if (res.status !== 200) throw new Error(`preparing report values: HTTP ${res.status}`);
    return res.json.data.rows ?? [];
  };
  const { pools, spans } = await valuePools(views, rowsOf);
  return { views, pools, spans, staff, others: [worker, billing], savedIds };
}

async function main() {
  const commandLine =
    process.env.npm_lifecycle_event === 'soak'
      ? `npm run soak${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`
      : `node bench/soak.mjs ${process.argv.slice(2).join(' ')}`.trim();
  log(`soak: ${commandLine}`);
  log(`seed ${SEED}; ${MINUTES} min; concurrency ${CONCURRENCY}; scale ${SCALE}`);

  let cluster = null;
  let db;
  let seededSeconds = null;
  if (values.pg) ({ db, cluster, seededSeconds } = await throwawayPostgres());
  else if (values.db) db = values.db;
  else ({ db, seededSeconds } = ensureSqlite());
  const store = db.startsWith('postgres') ? 'postgresql' : 'sqlite';

  const port = values.port ? Number(values.port) : await freePort();
  BASE = `http://127.0.0.1:${port}`;
  const staffToken = mintToken(db, 'staff');
  const server = startServer(db, port);
  const pid = server.child.pid;

  const rss = [];
  const distinct = new Set();
  const requestsSoFar = () => Object.values(stats.byKind).reduce((s, k) => s + k.n, 0);
  let sampler = null;
  let run = null;
  let exitCode = 0;
  try {
    await waitForHealth(server.child);
    const start = processMemory(pid);
    log(`server ${pid} up on ${BASE}; RSS ${round(start.rssMb)} MB`);
    sampler = setInterval(() => {
      const s = processMemory(pid);
      if (s)
        rss.push({ at: Date.now(), mb: s.rssMb, shapes: distinct.size, requests: requestsSoFar() });
    }, 1000);
    const probe = healthProbe(port);

    const prepared = await prepareTraffic(db, staffToken);
    const { views } = prepared;
    log(
      `catalog: ${views.length} views, ${views.reduce((s, v) => s + v.metrics.length, 0)} metrics`,
    );
    run = traffic({
      ...prepared,
      rng: prng(SEED),
      shapes: shapeGenerator(
        prng(SEED ^ 0x5eed),
        views,
        prepared.pools,
        prepared.spans,
        REPEAT_SHARE,
      ),
      onShape: (key) => distinct.add(key),
    });

    log(`traffic: ${CONCURRENCY} in flight for ${MINUTES} min (warm-up ${WARMUP_MS / 1000} s)`);
    const trafficStart = Date.now();
    const workers = run.start();
    let warmup = null;
    let lastLog = Date.now();
    while (Date.now() - trafficStart < TOTAL_MS && !server.crashed) {
      await sleep(250);
      if (!warmup && Date.now() - trafficStart >= WARMUP_MS) {
        warmup = processMemory(pid);
        log(`warm-up done: RSS ${round(warmup?.rssMb)} MB, ${distinct.size} shapes`);
      }
      if (Date.now() - lastLog >= 30_000) {
        lastLog = Date.now();
        log(
          `  ${Math.round((lastLog - trafficStart) / 1000)} s: ${requestsSoFar()} requests, ${distinct.size} shapes, RSS ${round(processMemory(pid)?.rssMb)} MB`,
        );
      }
    }
    run.stop();
    await Promise.all(workers);
    const trafficEnd = Date.now();
    await probe.stop();
    log(
      server.crashed ? 'server exited during traffic' : `traffic stopped; idle ${IDLE_MS / 1000} s`,
    );
    if (!server.crashed) await sleep(IDLE_MS);
    const end = processMemory(pid);
    const attacks =
      values.attacks === 'off' || server.crashed
        ? null
        : await runAttacks({
            db,
            port,
            pid,
            attackerToken: staffToken,
            victimToken: mintToken(db, 'staff'),
            log,
          });
    clearInterval(sampler);
    const shutdown = server.crashed ? null : await server.stop();
    // Issue 44's attacks, each on a server of its own over a fresh copy of this database (made
    // once this server has stopped: PostgreSQL copies a database nothing is connected to).
    if (attacks && OPEN_INTERNET.length > 0)
      attacks.openInternet = await runOpenInternetAttacks({
        source: openInternetSource(db, cluster),
        which: OPEN_INTERNET,
      });

    const output = summarize({
      commandLine,
      store,
      db,
      seededSeconds,
      start,
      warmup,
      end,
      trafficStart,
      trafficEnd,
      rss,
      probes: probe.probes.filter((p) => p.at >= trafficStart && p.at <= trafficEnd),
      reports: run.reports,
      distinct,
      crashed: server.crashed,
      attacks,
      shutdown,
      serverLog: server.log,
    });
    const file = `bench/results/soak-${output.date.replace(/[:.]/g, '-')}.json`;
    await writeFormatted(file, output);
    print(output);
    console.log(`\nwritten to ${file}`);
    if (server.crashed || output.requests.byClass['2xx'] === 0) exitCode = 1;
  } catch (error) {
    console.error(error);
    exitCode = 1;
  } finally {
    run?.stop();
    if (sampler) clearInterval(sampler);
    if (server.running()) await server.stop();
    if (server.crashed) {
      console.error(`server exited unasked: ${JSON.stringify(server.crashed)}; last log lines:`);
      for (const line of server.log.last) console.error(`  ${line}`);
    }
    cluster?.destroy();
  }
  process.exit(exitCode);
}

function summarize(r) {
  const trafficSeconds = (r.trafficEnd - r.trafficStart) / 1000;
  const byKind = {};
  const byClass = { '2xx': 0, '4xx': 0, '5xx': 0, error: 0 };
  let total = 0;
  for (const [kind, k] of Object.entries(stats.byKind).sort()) {
    byKind[kind] = {
      n: k.n,
      '2xx': k['2xx'],
      '4xx': k['4xx'],
      '5xx': k['5xx'],
      error: k.error,
      p50Ms: round(percentile(k.ms, 50)),
      p99Ms: round(percentile(k.ms, 99)),
    };
    for (const c of Object.keys(byClass)) byClass[c] += k[c];
    total += k.n;
  }
  const probeMs = r.probes.filter((p) => p.status === 200).map((p) => p.ms);
  const mainProbeMs = r.probes
    .filter((p) => p.status === 200 && p.at >= r.trafficStart + WARMUP_MS)
    .map((p) => p.ms);
  const peakSampled = Math.max(...r.rss.map((s) => s.mb), r.start.rssMb);
  const warmupMb = r.warmup?.rssMb ?? null;
  const endMb = r.end?.rssMb ?? null;
  const healthP99 = percentile(probeMs, 99);
  const verdict = (ok) => (ok === null ? 'n/a' : ok ? 'PASS' : 'MISS');
  const targets = {
    'end RSS <= 1.2 x warm-up RSS': {
      value: warmupMb && endMb ? round(endMb / warmupMb, 2) : null,
      result: verdict(warmupMb && endMb ? endMb <= 1.2 * warmupMb : null),
    },
    'end RSS < 300 MB (scale small)': {
      value: round(endMb),
      result: verdict(SCALE === 'small' && endMb !== null ? endMb < 300 : null),
    },
    '/healthz p99 < 100 ms': {
      value: round(healthP99),
      result: verdict(healthP99 === null ? null : healthP99 < 100),
    },
  };
  const findings = [];
  if (r.crashed) findings.push(`server exited during the run: ${JSON.stringify(r.crashed)}`);
  if (byClass['5xx']) findings.push(`${byClass['5xx']} responses with a 5xx status`);
  if (byClass.error) findings.push(`${byClass.error} requests failed without an HTTP answer`);
  if (byClass['4xx']) findings.push(`${byClass['4xx']} responses with a 4xx status`);
  const refused = Object.values(stats.refusals).reduce((s, n) => s + n, 0);
  if (refused) findings.push(`${refused} refusals (see reports.refusals)`);
  if (r.probes.length > probeMs.length)
    findings.push(`${r.probes.length - probeMs.length} /healthz probes failed`);
  if (r.shutdown?.stoppedBy === 'SIGKILL') findings.push('SIGTERM did not stop the server in 15 s');
  const timeline = r.rss
    .filter((_, i) => i % 5 === 0)
    .map((s) => [Math.round((s.at - r.trafficStart) / 1000), round(s.mb), s.shapes, s.requests]);
  return {
    date: new Date().toISOString(),
    command: r.commandLine,
    git: { branch: git('rev-parse', '--abbrev-ref', 'HEAD'), commit: git('rev-parse', 'HEAD') },
    machine: machine(),
    seed: SEED,
    minutes: MINUTES,
    scale: SCALE,
    store: r.store,
    db: redact(r.db),
    dataSeed: { ...DATA_SEED, seededThisRunSeconds: r.seededSeconds },
    concurrency: CONCURRENCY,
    phases: {
      warmupSeconds: WARMUP_MS / 1000,
      trafficSeconds: round(trafficSeconds),
      idleSecondsBeforeEnd: IDLE_MS / 1000,
    },
    requests: {
      total,
      perSecond: round(total / trafficSeconds),
      byClass,
      byStatus: stats.byStatus,
      byKind,
      networkErrors: stats.networkErrors,
      first5xx: stats.fiveHundreds,
    },
    reports: {
      sent: r.reports?.sent ?? 0,
      distinctShapes: r.distinct.size,
      repeatsOfRecentShapes: r.reports?.repeats ?? 0,
      nextPagesFollowed: r.reports?.pagesFollowed ?? 0,
      outcomes: stats.reportOutcomes,
      truncatedBy: r.reports?.truncated ?? {},
      refusals: stats.refusals,
    },
    mcp: { toolErrors: stats.mcpToolErrors, rpcErrors: stats.mcpRpcErrors },
    rssMb: {
      start: round(r.start.rssMb),
      afterWarmup: round(warmupMb),
      peakSampled: round(peakSampled),
      peakVmHWM: round(r.end?.hwmMb ?? null),
      end: round(endMb),
      endOverWarmup: warmupMb && endMb ? round(endMb / warmupMb, 2) : null,
    },
    healthz: {
      probes: r.probes.length,
      failed: r.probes.length - probeMs.length,
      p50Ms: round(percentile(probeMs, 50), 2),
      p99Ms: round(healthP99, 2),
      maxMs: round(Math.max(...probeMs), 2),
      afterWarmup: {
        p50Ms: round(percentile(mainProbeMs, 50), 2),
        p99Ms: round(percentile(mainProbeMs, 99), 2),
        maxMs: round(Math.max(...mainProbeMs), 2),
      },
    },
    targets,
    findings,
    attacks: r.attacks,
    shutdown: r.shutdown,
    crashed: r.crashed,
    serverLog: r.serverLog,
    timelineColumns: ['secondsFromTrafficStart', 'rssMb', 'distinctShapes', 'requests'],
    timeline,
  };
}

function print(o) {
  const line = (label, value) => console.log(`${label.padEnd(34)}${value}`);
  console.log('');
  line('command', o.command);
  line('seed / minutes / scale / store', `${o.seed} / ${o.minutes} / ${o.scale} / ${o.store}`);
  line(
    'requests',
    `${o.requests.total} (${o.requests.perSecond}/s), ${JSON.stringify(o.requests.byClass)}`,
  );
  line('by status', JSON.stringify(o.requests.byStatus));
  line('report queries sent', `${o.reports.sent}, ${o.reports.distinctShapes} distinct shapes`);
  line('report outcomes', JSON.stringify(o.reports.outcomes));
  line('refusals', JSON.stringify(o.reports.refusals));
  console.log('\nby kind:');
  for (const [kind, k] of Object.entries(o.requests.byKind)) {
    console.log(
      `  ${kind.padEnd(40)}${String(k.n).padStart(7)}  2xx ${k['2xx']}  4xx ${k['4xx']}  5xx ${k['5xx']}  err ${k.error}  p50 ${k.p50Ms}  p99 ${k.p99Ms} ms`,
    );
  }
  console.log('');
  const m = o.rssMb;
  line(
    'RSS MB start/warm-up/peak/end',
    `${m.start} / ${m.afterWarmup} / ${m.peakSampled} (HWM ${m.peakVmHWM}) / ${m.end}`,
  );
  line('end / warm-up', m.endOverWarmup);
  const h = o.healthz;
  line(
    '/healthz p50/p99/max ms',
    `${h.p50Ms} / ${h.p99Ms} / ${h.maxMs} (${h.probes} probes, ${h.failed} failed)`,
  );
  for (const [name, t] of Object.entries(o.targets)) line(`  ${t.result}`, `${name}: ${t.value}`);
  if (o.attacks) {
    for (const name of ['unreadPipelinesWithToken', 'unreadPipelinesWithoutToken']) {
      const { victim, peakRssMb } = o.attacks[name];
      line(
        `${name}`,
        `victim 200s ${victim.ok}/${victim.requests} (${victim.okShare}), p50/p99/max ${victim.p50Ms}/${victim.p99Ms}/${victim.maxMs} ms, peak RSS ${peakRssMb} MB`,
      );
    }
    line('vanishing waves: RSS MB', o.attacks.waves.rssMbBeforeAndAfterEachWave.join(' -> '));
    if (o.attacks.openInternet) printOpenInternet(o.attacks.openInternet);
  }
  line('shutdown', JSON.stringify(o.shutdown));
  if (o.findings.length) {
    console.log('findings:');
    for (const f of o.findings) console.log(`  - ${f}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
