// Where a server's resident memory goes (issue 59): a server on the bench's database, as the
// command runs it, at rest after a warm-up and after the workloads `npm run bench` puts on its
// service (list_workers, get_worker, get_invoice, get_timesheet, the typical reports repeated,
// MCP's list_workers; 10 connections each). RSS is read from /proc/PID/smaps by mapping: Node's
// binary, DuckDB's and better-sqlite3's native modules and other libraries (file pages, and the
// pages their loading made private), malloc's main heap (`[heap]`), thread stacks, and the other
// anonymous maps (V8's heap, malloc's other arenas, DuckDB's own allocator), beside V8's figures
// (process.memoryUsage() through the inspector) and malloc's (mallinfo2() through gdb).
//
//   node bench/memory-parts.mjs [--db bench/data/medium.db] [--server-dir DIR] [--env NAME=VALUE]…
//     [--node-flag FLAG]… [--seconds 3] [--no-inspect] [--out FILE]
//
// `--server-dir` measures another checkout's build; `--no-inspect` leaves the inspector out (its
// agent costs a few MB); the result's `rps` are the workloads' rates, for settings compared in turn.
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildOf } from './open-internet/build.mjs';
import {
  freePort,
  log,
  mcpListWorkers,
  mintTokenWith,
  round,
  spawnServer,
  timedLoad,
  waitFor,
} from './lib.mjs';
import { inspectorOf, mallocOf } from './memory-fairness/breakdown.mjs';
import { TYPICAL_QUERIES } from './typical-reports.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'bench/data/medium.db' },
    'server-dir': { type: 'string', default: '.' },
    env: { type: 'string', multiple: true, default: [] },
    'node-flag': { type: 'string', multiple: true, default: [] },
    seconds: { type: 'string', default: '3' },
    'no-inspect': { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const ENV = Object.fromEntries(
  values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A mapping's part of RSS, by what it is (its path, or for anonymous maps its kind). */
function partOf(path, sizeKb, perms) {
  if (path === '[heap]') return 'malloc main heap';
  if (path === '[stack]') return 'main stack';
  if (path.startsWith('[')) return 'kernel ([vdso], [vvar])';
  if (path.endsWith('/node') || /\/node\d*$/.test(path)) return "Node's binary";
  if (path.includes('duckdb')) return "DuckDB's library";
  if (path.includes('better_sqlite3')) return "better-sqlite3's library";
  if (/\.so(\.|$)/.test(path)) return 'other libraries';
  if (path) return 'other files';
  // Thread stacks: 8 MB (glibc's default) or Node's worker stacks (4 MB), read-write.
  if (perms.startsWith('rw') && (sizeKb === 8192 || sizeKb === 4096 || sizeKb === 8188))
    return 'anonymous: thread stacks';
  return 'anonymous: V8 heap, malloc arenas, DuckDB';
}

/** RSS by part, in MB, from /proc/PID/smaps: resident, and of it anonymous (private) pages. */
export function partsOf(pid) {
  const parts = {};
  let current = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const sizeKb = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024;
      const name = partOf(head[4], sizeKb, head[3]);
      current = parts[name] ??= { rssMb: 0, anonMb: 0, maps: 0 };
      current.maps++;
    } else if (current && line.startsWith('Rss:'))
      current.rssMb += Number(line.split(/\s+/)[1]) / 1024;
    else if (current && line.startsWith('Anonymous:'))
      current.anonMb += Number(line.split(/\s+/)[1]) / 1024;
  }
  for (const part of Object.values(parts)) {
    part.rssMb = round(part.rssMb);
    part.anonMb = round(part.anonMb);
  }
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return {
    rssMb: round(kb('VmRSS') / 1024),
    anonMb: round(kb('RssAnon') / 1024),
    fileMb: round(kb('RssFile') / 1024),
    threads: kb('Threads'),
    parts,
  };
}

/** V8's heap by space (committed MB), through the inspector. */
async function heapSpaces(inspector) {
  const expression = `Object.fromEntries(process.getBuiltinModule('v8').getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.physical_space_size / 2 ** 20 * 10) / 10]))`;
  const { result } = await inspector.send('Runtime.evaluate', { expression, returnByValue: true });
  return result.value;
}

/** The bench's service workloads (bench/run.mjs), by name. */
function workloads(auth, ids) {
  const json = { 'content-type': 'application/json' };
  const item = (resource, list) => ({
    path: `/api/v1/${resource}/item`,
    pick: (i) => `/api/v1/${resource}/item?id=${encodeURIComponent(list[i % list.length])}`,
    headers: auth,
  });
  return {
    list_workers: { path: '/api/v1/workers?limit=50', headers: auth },
    get_worker: item('workers', ids.workers),
    get_invoice: item('invoices', ids.invoices),
    get_timesheet: item('timesheets', ids.timesheets),
    ...Object.fromEntries(
      Object.entries(TYPICAL_QUERIES).map(([name, body]) => [
        `report: ${name}`,
        {
          method: 'POST',
          path: '/api/v1/reports/query',
          body: JSON.stringify(body),
          headers: { ...auth, ...json },
        },
      ]),
    ),
    mcp_list_workers: mcpListWorkers(auth),
  };
}

/** 500 ids of each kind of the business workspace's records, as bench/run.mjs picks them. */
function idsOf(db) {
  const store = new Database(db, { readonly: true });
  const sample = (table) =>
    store
      .prepare(
        `SELECT id FROM ${table} WHERE workspace_id = 'ws_business' ORDER BY random() LIMIT 500`,
      )
      .all()
      .map((r) => r.id);
  const ids = {
    workers: sample('workers'),
    invoices: sample('invoices'),
    timesheets: sample('timesheets'),
  };
  store.close();
  return ids;
}

async function main() {
  const build = buildOf(values['server-dir']);
  const token = mintTokenWith(build.cli, values.db, 'ws_business');
  const auth = { authorization: `Bearer ${token}` };
  const port = await freePort();
  const inspectPort = values['no-inspect'] ? null : await freePort();
  const server = spawnServer(values.db, port, {
    build,
    env: { LOG_LEVEL: 'warn', ...ENV },
    nodeFlags: [
      ...(inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
      ...values['node-flag'],
    ],
  });
  const base = `http://127.0.0.1:${port}`;
  const inspector = inspectPort ? await inspectorOf(inspectPort) : null;
  const snapshot = async () => ({
    ...partsOf(server.pid),
    v8: inspector ? { ...(await inspector.v8()), spaces: await heapSpaces(inspector) } : null,
    malloc: mallocOf(server.pid),
  });
  try {
    await waitFor(`${base}/healthz`, 120);
    const started = partsOf(server.pid);
    const ids = idsOf(values.db);
    const loads = workloads(auth, ids);
    // The warm-up: each workload a second, at one connection.
    for (const spec of Object.values(loads))
      await timedLoad(base, spec, { seconds: 1, connections: 1 });
    await sleep(3000);
    const rest = await snapshot();
    log(`at rest: ${rest.rssMb} MB`);
    let peak = 0;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, partsOf(server.pid).rssMb);
      } catch {
        // gone
      }
    }, 250);
    const rps = {};
    for (const [name, spec] of Object.entries(loads)) {
      rps[name] = (await timedLoad(base, spec, { seconds: SECONDS, connections: 10 })).rps;
      log(`${name}: ${rps[name]} rps`);
    }
    clearInterval(sampler);
    const underLoad = await snapshot();
    const hwm = Number(
      /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1],
    );
    const result = {
      date: new Date().toISOString(),
      build: { dir: build.dir, commit: build.commit, dirty: build.dirty },
      env: ENV,
      nodeFlags: values['node-flag'],
      seconds: SECONDS,
      loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
      started,
      rest,
      underLoad,
      peakRssMb: round(Math.max(peak, hwm / 1024)),
      rps,
    };
    if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
    printParts(result);
  } finally {
    inspector?.close();
    server.kill('SIGTERM');
  }
}

function printParts({ started, rest, underLoad, peakRssMb, rps }) {
  const names = [...new Set([...Object.keys(rest.parts), ...Object.keys(underLoad.parts)])];
  console.log('| part | at start MB | at rest MB | under load MB |');
  console.log('|---|--:|--:|--:|');
  for (const name of names.sort())
    console.log(
      `| ${name} | ${started.parts[name]?.rssMb ?? 0} | ${rest.parts[name]?.rssMb ?? 0} | ${underLoad.parts[name]?.rssMb ?? 0} |`,
    );
  console.log(
    `| RSS | ${started.rssMb} | ${rest.rssMb} | ${underLoad.rssMb} (peak ${peakRssMb}) |`,
  );
  console.log(`threads: ${rest.threads} at rest, ${underLoad.threads} under load`);
  console.log(`V8 at rest ${JSON.stringify(rest.v8)}; under load ${JSON.stringify(underLoad.v8)}`);
  console.log(
    `malloc at rest ${JSON.stringify(rest.malloc)}; under load ${JSON.stringify(underLoad.malloc)}`,
  );
  console.log(`rps ${JSON.stringify(rps)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
