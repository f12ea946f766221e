// Issue 58: the OData feed against REST, on the medium seed. `node bench/odata.mjs [--quick]
// [--db file] [--seconds N] [--out file.json]` (default bench/results/odata-<ISO date-time>.json);
// bench/run.mjs runs it. Targets (DESIGN §4.18):
// - a 1,000-row page of Workers and of InvoiceLines: rows per second at least 0.8× the same rows
//   through REST (Workers: list_workers' pages of the plan's size, following their cursors;
//   InvoiceLines, which REST lists only under their invoice: get_invoice of the invoices whose
//   lines the page holds), cached (answer caches on, each request warmed twice) and uncached
//   (VMS_READ_CACHE=off); autocannon, 10 connections, rows/s = requests/s × rows a request;
// - TimeEntries read to its end through nextLinks: at least 50,000 rows/s (pages of 1,000, the
//   default, and of 10,000), and a 10,000-row page adds at most 50 MB to the server's RSS (its
//   peak, VmHWM, over its RSS before);
// - $metadata: p50 under 50 ms (200 requests one after the other).
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  benchDb,
  benchSeed,
  ensureSeeded,
  freePort,
  log,
  mintToken,
  round,
  spawnServer,
  timedLoad,
  waitFor,
} from './lib.mjs';

const WS = 'ws_business';
const ROWS = 1000;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      scale: { type: 'string', default: 'medium' },
      db: { type: 'string' },
      seconds: { type: 'string' },
      connections: { type: 'string', default: '10' },
      out: { type: 'string' },
    },
  });
  return {
    db: values.db ?? benchDb(values.scale),
    scale: values.scale,
    quick: values.quick,
    seconds: Number(values.seconds ?? (values.quick ? 3 : 10)),
    connections: Number(values.connections),
    out: values.out,
  };
}

const rssOf = (pid, field = 'VmRSS') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) /
  1024;

async function json(base, path, token, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** REST's paths that carry the same 1,000 rows as one OData page, and how many rows each gives. */
async function restPaths(base, token) {
  const workers = [];
  let cursor = null;
  let rows = 0;
  while (rows < ROWS) {
    const path = `/api/v1/workers?limit=50${cursor ? `&cursor=${cursor}` : ''}`;
    const page = (await json(base, path, token)).data;
    workers.push(path);
    rows += page.items.length;
    cursor = page.nextCursor;
  }
  const lines = await json(base, `/odata/v4/InvoiceLines?$select=invoiceId&$top=${ROWS}`, token);
  const invoices = [...new Set(lines.value.map((l) => l.invoiceId))];
  return {
    Workers: { paths: workers, rowsPerRequest: ROWS / workers.length },
    InvoiceLines: {
      paths: invoices.map((id) => `/api/v1/invoices/item?id=${id}`),
      rowsPerRequest: ROWS / invoices.length,
    },
  };
}

async function pageThroughput(base, token, pid, o) {
  const rest = await restPaths(base, token);
  const headers = { authorization: `Bearer ${token}` };
  const results = {};
  for (const set of ['Workers', 'InvoiceLines']) {
    const odataPath = `/odata/v4/${set}?$top=${ROWS}`;
    // Twice each, untimed: a cache keeps an answer from its second request.
    for (const path of [...rest[set].paths, odataPath, ...rest[set].paths, odataPath])
      await fetch(`${base}${path}`, { headers });
    const { paths, rowsPerRequest } = rest[set];
    const viaRest = await timedLoad(
      base,
      { path: paths[0], pick: (i) => paths[i % paths.length], headers },
      { seconds: o.seconds, connections: o.connections, pid },
    );
    const viaOData = await timedLoad(
      base,
      { path: odataPath, headers },
      { seconds: o.seconds, connections: o.connections, pid },
    );
    const restRows = Math.round(viaRest.rps * rowsPerRequest);
    const odataRows = Math.round(viaOData.rps * ROWS);
    results[set] = {
      restRowsPerSecond: restRows,
      odataRowsPerSecond: odataRows,
      ratio: round(odataRows / restRows, 2),
      restRequests: paths.length,
    };
  }
  return results;
}

/** TimeEntries read to its end through nextLinks, one request after the other. */
async function readToEnd(base, token, pageSize) {
  let next = `${base}/odata/v4/TimeEntries`;
  let rows = 0;
  const started = performance.now();
  while (next) {
    const page = await (
      await fetch(next, {
        headers: { authorization: `Bearer ${token}`, prefer: `odata.maxpagesize=${pageSize}` },
      })
    ).json();
    if (!Array.isArray(page.value))
      throw new Error(`TimeEntries: ${JSON.stringify(page).slice(0, 300)}`);
    rows += page.value.length;
    next = page['@odata.nextLink'];
  }
  const seconds = (performance.now() - started) / 1000;
  return { pageSize, rows, seconds: round(seconds, 2), rowsPerSecond: Math.round(rows / seconds) };
}

async function metadataLatency(base, token, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const response = await fetch(`${base}/odata/v4/$metadata`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await response.text();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    p50Ms: round(times[Math.floor(runs / 2)], 2),
    p99Ms: round(times[Math.floor(runs * 0.99)], 2),
    firstMs: round(times[0], 2),
  };
}

async function serve(db, env) {
  const port = await freePort();
  const server = spawnServer(db, port, {
    env: { LOG_LEVEL: 'warn', VMS_READ_AUDIT: 'off', ...env },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`, 120);
  return { server, base };
}

export async function main() {
  const o = options();
  ensureSeeded(o.db, benchSeed(o.scale));
  const token = mintToken(o.db, WS);
  const output = {
    date: new Date().toISOString(),
    scale: o.scale,
    seconds: o.seconds,
    connections: o.connections,
  };
  for (const [mode, env] of [
    ['cached', {}],
    ['uncached', { VMS_READ_CACHE: 'off' }],
  ]) {
    const { server, base } = await serve(o.db, env);
    try {
      if (mode === 'uncached') {
        // First, on a server that has answered small requests only: what a 10,000-row page adds
        // to its resident memory at its peak (VmHWM), five of them one after the other.
        for (let i = 0; i < 20; i++) await json(base, '/odata/v4/TimeEntries?$top=10', token);
        const before = rssOf(server.pid);
        for (let i = 0; i < 5; i++)
          await json(base, '/odata/v4/TimeEntries', token, { prefer: 'odata.maxpagesize=10000' });
        output.tenThousandRowPage = {
          rssBeforeMb: round(before),
          peakMb: round(rssOf(server.pid, 'VmHWM')),
          addedMb: round(rssOf(server.pid, 'VmHWM') - before),
        };
      }
      log(`odata: a 1,000-row page against REST's same rows, ${mode}`);
      output[mode] = await pageThroughput(base, token, server.pid, o);
      if (mode === 'uncached') {
        log('odata: TimeEntries to its end through nextLinks');
        await readToEnd(base, token, 1000); // warm
        output.timeEntries = [
          await readToEnd(base, token, 1000),
          await readToEnd(base, token, 10_000),
        ];
        output.metadata = await metadataLatency(base, token, 200);
      }
    } finally {
      server.kill('SIGTERM');
    }
  }
  const file = o.out ?? `bench/results/odata-${output.date.replace(/[:.]/g, '-')}.json`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  printODataTable(output);
  return output;
}

export function printODataTable(r) {
  const mark = (ok) => (ok ? '✓' : '✗');
  console.log('\nOData feed against REST: rows/s of a 1,000-row page (target ≥ 0.8× REST)');
  for (const mode of ['cached', 'uncached'])
    for (const [set, m] of Object.entries(r[mode]))
      console.log(
        `${set.padEnd(13)}${mode.padEnd(9)} REST ${String(m.restRowsPerSecond).padStart(8)} (${m.restRequests} requests)  OData ${String(m.odataRowsPerSecond).padStart(8)}  ×${m.ratio} ${mark(m.ratio >= 0.8)}`,
      );
  for (const t of r.timeEntries)
    console.log(
      `TimeEntries to its end, pages of ${t.pageSize}: ${t.rows} rows in ${t.seconds} s, ${t.rowsPerSecond} rows/s ${mark(t.rowsPerSecond >= 50_000)}`,
    );
  const page = r.tenThousandRowPage;
  console.log(
    `a 10,000-row page: RSS ${page.rssBeforeMb} MB before, peak ${page.peakMb} MB, +${page.addedMb} MB ${mark(page.addedMb <= 50)}`,
  );
  console.log(
    `$metadata: p50 ${r.metadata.p50Ms} ms, p99 ${r.metadata.p99Ms} ms ${mark(r.metadata.p50Ms < 50)}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
