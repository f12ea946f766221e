// Loads that update (issue 20, item 7): `vms-read import` of N new time entries and of N updated
// timesheets into a copy of the seeded database while a server runs on it, for N of 1, 10,000 and
// 1,000,000: seconds, rows/s and the import's peak RSS, then how long until a report on the
// running server reflects the load from the columnar engine (and whether the row store answered
// meanwhile); and a full export of the biggest workspace through the change feed.
// Usage: npm run build && node bench/loads.mjs [--scale medium|large] [--db F] [--out F]
//        [--rows 1,10000,1000000]
// The seeded database (bench/data/<scale>.db) is never changed: the loads go into
// bench/data/<scale>-loads.db, removed at the end unless BENCH_KEEP=1.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  benchDb,
  benchSeed,
  CLI,
  cli,
  ensureSeeded,
  freePort,
  log as say,
  peakRssMbOf,
  round,
  waitFor,
} from './lib.mjs';

const log = (message) => say(`[loads] ${message}`);

/** The biggest workspace of every scale: its plan's page is 100, the loads target is set for it. */
const WORKSPACE = 'ws_enterprise';
const SCOPES = 'read:program,read:financial,read:workforce,read:pii';

/** The issue's targets (issue 20), shown beside the figures. */
export const TARGETS = {
  oneRowSeconds: 1,
  tenThousandRowsSeconds: 3,
  millionNewRowsPerSecond: 200_000,
  peakRssMb: 300,
  reflectedMs: 1000, // from the columnar engine, at scale large
  exportRecordsPerSecond: 20_000, // at scale medium
};

/** How often a report asks whether the server reflects a load, and for how long at most. */
const POLL_MS = 50;
const REFLECT_LIMIT_MS = 300_000;

/** How many recent timesheets lend their (timesheet, assignment, worker) to the new entries. */
const TEMPLATES = 2000;

/** A new entry's creation time: fixed, so runs compare; recent against the seed's as-of date. */
const CREATED_AT = '2026-06-29T12:00:00.000Z';

/**
 * Updated timesheets carry an `updated_at` after every stored one, one millisecond apart and
 * increasing across the runs of this process, so each update load replaces what the one before
 * wrote (an equal or earlier time would be refused or skipped).
 */
let updateClock = Date.parse('2030-01-01T00:00:00.000Z');

/** Each status moves to the next, so every updated row changes the report's counts. */
const NEXT_STATUS = {
  draft: 'submitted',
  submitted: 'approved',
  approved: 'rejected',
  rejected: 'draft',
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The copy

/** Files that belong to a SQLite database beside its main file. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/**
 * Copies the seeded database (and its write-ahead log, which may hold tokens other benchmarks
 * minted) to `<name>-loads.db`, with the columnar base copies, so the server opens a copy of
 * a base rather than writing one. Whatever a previous run left there is removed first.
 */
function copyDatabase(source) {
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

function removeCopy(copy) {
  for (const suffix of ['', ...SIDE_FILES]) rmSync(`${copy}${suffix}`, { force: true });
  rmSync(`${copy}.facts`, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// The server

/**
 * `vms-read serve` on the copy with metrics on and quota off. Its log is read for the columnar
 * copy's own lines (opened, patched, rewritten, failing), which say why a report waited.
 */
async function startServer(db) {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve', '--db', db, '--port', String(port)], {
    env: {
      ...process.env,
      VMS_READ_METRICS: '1',
      VMS_READ_QUOTA_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const factsLog = [];
  const exited = once(child, 'exit');
  const scan = (stream) => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) {
        if (!line.includes('columnar report facts')) {
          // Request lines are many; anything else the server says may explain a failure.
          if (!line.startsWith('{')) process.stderr.write(`[server] ${line}\n`);
          continue;
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
      }
    });
  };
  scan(child.stdout);
  scan(child.stderr);
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
async function askReport(server, auth, query, variant) {
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

/** A dimension's value: plain, or the value inside a provenance envelope. */
const plain = (value) => (value !== null && typeof value === 'object' ? value.value : value);

/**
 * Polls every POLL_MS until a report is right (`isRight(rows)`) and ran on DuckDB: the time from
 * `from` to that answer, the polls it took, and how many the row store answered in between.
 */
async function untilReflected(server, auth, query, isRight, from) {
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
function foldPolls(log) {
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
// The files a load imports

/** A CSV field: empty for null (as the importer reads it), quoted when it must be. */
const csvField = (value) => {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** Writes `rows` (an iterable of arrays) under a header, in chunks, minding back-pressure. */
async function writeCsv(file, columns, rows) {
  const out = createWriteStream(file);
  let chunk = [`${columns.join(',')}`];
  const flush = async () => {
    if (!out.write(`${chunk.join('\n')}\n`)) await once(out, 'drain');
    chunk = [];
  };
  for (const row of rows) {
    chunk.push(row.map(csvField).join(','));
    if (chunk.length >= 10_000) await flush();
  }
  if (chunk.length > 0) await flush();
  out.end();
  await once(out, 'close');
  return statSync(file).size;
}

/**
 * The first entry of each of the workspace's most recent timesheets: new entries copy their
 * timesheet, assignment, worker, supplier, day and pay code, so each one names real records and
 * lands where the seed's entries are.
 */
function entryTemplates(sqlite) {
  return sqlite
    .prepare(
      `SELECT e.timesheet_id, e.assignment_id, e.worker_id, e.supplier_ref, e.work_date,
              e.pay_code, e.quantity_minutes, e.quantity_units
         FROM (SELECT id FROM timesheets WHERE workspace_id = ?
                ORDER BY created_at DESC, id DESC LIMIT ?) t
         JOIN time_entries e ON e.id = (SELECT id FROM time_entries WHERE timesheet_id = t.id
                                         ORDER BY created_at, id LIMIT 1)`,
    )
    .all(WORKSPACE, TEMPLATES);
}

const ENTRY_COLUMNS = [
  'id',
  'timesheet_id',
  'assignment_id',
  'worker_id',
  'supplier_ref',
  'work_date',
  'pay_code',
  'quantity_minutes',
  'quantity_units',
  'kind',
  'corrects_entry_id',
  'captured_on_behalf',
  'created_at',
];

/** N new original time entries spread over the templates, with ids no run has used. */
function* newEntries(templates, n, run) {
  for (let i = 0; i < n; i++) {
    const t = templates[i % templates.length];
    yield [
      `te_load_${run}_${i}`,
      t.timesheet_id,
      t.assignment_id,
      t.worker_id,
      t.supplier_ref,
      t.work_date,
      t.pay_code,
      t.quantity_minutes === null ? null : 15 + (i % 32) * 15,
      t.quantity_units,
      'original',
      null,
      i % 7 === 0 ? 1 : 0,
      CREATED_AT,
    ];
  }
}

/**
 * N of the workspace's timesheets (all of them when it holds fewer) as stored, each with the
 * next status and a later `updated_at`: N updates.
 */
function updatedTimesheets(sqlite, n) {
  const stored = sqlite
    .prepare(
      'SELECT * FROM timesheets WHERE workspace_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
    )
    .all(WORKSPACE, n);
  const columns = Object.keys(stored[0] ?? {}).filter((c) => c !== 'workspace_id');
  const rows = stored.map((row) =>
    columns.map((c) =>
      c === 'status'
        ? NEXT_STATUS[row.status]
        : c === 'updated_at'
          ? new Date(updateClock++).toISOString()
          : row[c],
    ),
  );
  return { columns, rows };
}

/** Timesheets by status, as the row store holds them now: what the report must come to show. */
function statusCounts(sqlite) {
  return Object.fromEntries(
    sqlite
      .prepare(
        'SELECT status, COUNT(*) AS n FROM timesheets WHERE workspace_id = ? GROUP BY status',
      )
      .all(WORKSPACE)
      .map((r) => [r.status, r.n]),
  );
}

// ---------------------------------------------------------------------------------------------
// One load

/** `vms-read import` under /usr/bin/time: wall seconds, peak RSS and its JSON answer. */
async function runImport(db, dir) {
  const started = performance.now();
  const child = spawn(
    '/usr/bin/time',
    ['-v', process.execPath, CLI, 'import', '--db', db, '--workspace', WORKSPACE, dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'exit');
  const exitedAt = performance.now();
  if (code !== 0)
    throw new Error(`vms-read import ${dir} failed (${code}): ${stderr.slice(-2000)}`);
  return {
    exitedAt,
    seconds: (exitedAt - started) / 1000,
    peakRssMb: peakRssMbOf(stderr),
    answer: JSON.parse(stdout),
  };
}

const TOTAL_ENTRIES = { metrics: ['time_entry_count'], dimensions: [] };
const BY_STATUS = { metrics: ['timesheet_count'], dimensions: ['timesheet_status'] };

/** Prepares the file of one load and what the report must show after it. */
async function prepareLoad({ kind, n, sqlite, server, auth, templates, run, dir }) {
  mkdirSync(dir, { recursive: true });
  if (kind === 'new') {
    const bytes = await writeCsv(
      join(dir, 'time_entries.csv'),
      ENTRY_COLUMNS,
      newEntries(templates, n, run),
    );
    const before = (await askReport(server, auth, TOTAL_ENTRIES, 0)).rows[0].time_entry_count;
    return {
      table: 'time_entries',
      rows: n,
      bytes,
      query: TOTAL_ENTRIES,
      // What it must equal is known once the import says how many it inserted.
      isRightFor: (inserted) => (rows) => rows[0]?.time_entry_count === before + inserted,
    };
  }
  const { columns, rows } = updatedTimesheets(sqlite, n);
  const bytes = await writeCsv(join(dir, 'timesheets.csv'), columns, rows);
  return {
    table: 'timesheets',
    rows: rows.length,
    bytes,
    query: BY_STATUS,
    isRightFor: () => {
      const expected = statusCounts(sqlite);
      return (answer) =>
        answer.length === Object.keys(expected).length &&
        answer.every((r) => expected[plain(r.timesheet_status)] === r.timesheet_count);
    },
  };
}

/** One load of `n` rows of `kind`: the import's figures, then the server's time to reflect it. */
async function measureLoad(context, kind, n, index) {
  const dir = join(context.filesDir, `${index}-${kind}-${n}`);
  // Ids new in this load too: `te_load_<run>_<load>_<i>`.
  const load = await prepareLoad({ ...context, run: `${context.run}_${index}`, kind, n, dir });
  log(`${kind} ×${n}: importing ${load.rows} rows (${round(load.bytes / 2 ** 20)} MB of CSV)`);
  const factsLogFrom = context.server.factsLog.length;
  const imported = await runImport(context.copy, dir);
  const counts = imported.answer.counts[load.table];
  const changed = counts.inserted + counts.updated;
  if (changed !== load.rows)
    throw new Error(`${kind} ×${n}: ${load.rows} rows sent, ${JSON.stringify(counts)} imported`);
  const reflected = await untilReflected(
    context.server,
    context.auth,
    load.query,
    load.isRightFor(counts.inserted),
    imported.exitedAt,
  );
  rmSync(dir, { recursive: true, force: true });
  const result = {
    kind,
    size: n,
    rows: load.rows,
    csvMb: round(load.bytes / 2 ** 20),
    seconds: round(imported.seconds, 2),
    rowsPerSecond: Math.round(load.rows / imported.seconds),
    peakRssMb: imported.peakRssMb,
    counts,
    dataVersion: imported.answer.dataVersion,
    reflectedMs: reflected.ms,
    fellBackToRowStore: reflected.engines.sqlite + reflected.engines.postgres > 0,
    polls: reflected.polls,
    pollEngines: reflected.engines,
    rightFromRowStoreMs: reflected.rightBeforeColumnar,
    // The polls, runs on one engine with one verdict folded into one entry (foldPolls).
    pollLog: foldPolls(reflected.log),
    ...(reflected.gaveUpAfterMs ? { gaveUpAfterMs: reflected.gaveUpAfterMs } : {}),
    serverLog: context.server.factsLog
      .slice(factsLogFrom)
      .map((e) => `${round(e.at - imported.exitedAt, 0)} ms: ${e.message}`),
  };
  log(
    `${kind} ×${n}: ${result.seconds} s, ${result.rowsPerSecond} rows/s, ${result.peakRssMb} MB; ` +
      `reflected from duckdb after ${result.reflectedMs ?? 'never'} ms (${result.polls} polls, ${JSON.stringify(result.pollEngines)})`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------
// The export

/** The whole change feed of the workspace from the start, page after page on one connection. */
async function exportFeed(server, auth) {
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

// ---------------------------------------------------------------------------------------------
// The table

const yesNo = (x) => (x ? 'yes' : 'no');
const mark = (ok) => (ok === null ? '' : ok ? ' ✓' : ' ✗');

/** The targets one load is held to, each with whether it met it. */
function targetsOf(load, scale) {
  const checks = [];
  if (load.size === 1)
    checks.push([`≤ ${TARGETS.oneRowSeconds} s`, load.seconds <= TARGETS.oneRowSeconds]);
  if (load.size === 10_000)
    checks.push([
      `≤ ${TARGETS.tenThousandRowsSeconds} s`,
      load.seconds <= TARGETS.tenThousandRowsSeconds,
    ]);
  if (load.size === 1_000_000 && load.kind === 'new')
    checks.push([
      `≥ ${TARGETS.millionNewRowsPerSecond.toLocaleString('en')} rows/s`,
      load.rowsPerSecond >= TARGETS.millionNewRowsPerSecond,
    ]);
  checks.push([`≤ ${TARGETS.peakRssMb} MB`, load.peakRssMb <= TARGETS.peakRssMb]);
  const reflected = load.reflectedMs !== null && load.reflectedMs <= TARGETS.reflectedMs;
  checks.push([
    `columnar ≤ ${TARGETS.reflectedMs} ms${scale === 'large' ? '' : ' (at large)'}`,
    reflected,
  ]);
  return checks;
}

export function printLoadsTable(result) {
  if (!result) return;
  const pad = (x, n) => String(x).padEnd(n);
  const padl = (x, n) => String(x).padStart(n);
  console.log(
    `\nloads into ${result.workspace} (scale ${result.scale}): vms-read import while a server runs on the same database`,
  );
  console.log(
    `${padl('size', 9)}  ${pad('kind', 7)}${padl('rows', 11)}${padl('seconds', 9)}${padl('rows/s', 9)}${padl('peak MB', 9)}${padl('reflect ms', 12)}  ${pad('row store', 10)}targets (✓ met, ✗ not)`,
  );
  for (const load of result.loads) {
    const targets = targetsOf(load, result.scale)
      .map(([target, ok]) => `${target}${mark(ok)}`)
      .join(', ');
    console.log(
      `${padl(load.size.toLocaleString('en'), 9)}  ${pad(load.kind, 7)}${padl(load.rows.toLocaleString('en'), 11)}${padl(load.seconds, 9)}${padl(load.rowsPerSecond, 9)}${padl(load.peakRssMb, 9)}${padl(load.reflectedMs ?? 'never', 12)}  ${pad(yesNo(load.fellBackToRowStore), 10)}${targets}`,
    );
  }
  const x = result.export;
  const exportOk = x.recordsPerSecond >= TARGETS.exportRecordsPerSecond;
  console.log(
    `export through the change feed: ${x.records} records in ${x.pages} pages (${x.mb} MB) in ${x.seconds} s, ${x.recordsPerSecond} records/s; target ≥ ${TARGETS.exportRecordsPerSecond.toLocaleString('en')}/s at medium${mark(exportOk)}`,
  );
  console.log(
    `server: first report from duckdb ${result.server.firstColumnarMs} ms after start; peak RSS ${result.server.peakRssMb} MB`,
  );
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: 'medium' },
      db: { type: 'string' },
      out: { type: 'string' },
      rows: { type: 'string', default: '1,10000,1000000' },
    },
  });
  const sizes = values.rows.split(',').map((s) => Number(s.replaceAll('_', '')));
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new Error(`--rows takes sizes like 1,10000,1000000, got ${values.rows}`);
  const seed = benchSeed(values.scale);
  const source = values.db ?? benchDb(values.scale);
  const seedFigures = ensureSeeded(source, seed);

  log(`copying ${source}`);
  const { copy, bases } = copyDatabase(source);
  const filesDir = mkdtempSync(join(tmpdir(), 'vms-read-loads-'));
  const token = cli([
    'token',
    'create',
    '--db',
    copy,
    '--workspace',
    WORKSPACE,
    '--role',
    'staff',
    '--scopes',
    SCOPES,
  ]).trim();
  const auth = { authorization: `Bearer ${token}` };
  const sqlite = new Database(copy, { readonly: true });
  let server = null;
  // Interrupted: the server is stopped and the copy removed all the same.
  const stopOnSignal = async () => {
    await server?.stop();
    if (process.env.BENCH_KEEP !== '1') removeCopy(copy);
    rmSync(filesDir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    const started = performance.now();
    server = await startServer(copy);
    await waitFor(`${server.base}/healthz`, 120);
    const healthyMs = round(performance.now() - started);
    const first = await untilReflected(server, auth, TOTAL_ENTRIES, () => true, started);
    if (first.ms === null) throw new Error('the server never answered a report from duckdb');
    log(`server up in ${healthyMs} ms; first report from duckdb after ${first.ms} ms`);

    log(`export: the change feed of ${WORKSPACE} from the start`);
    const exported = await exportFeed(server, auth);
    log(`export: ${exported.records} records in ${exported.seconds} s`);

    const context = {
      copy,
      sqlite,
      server,
      auth,
      filesDir,
      templates: entryTemplates(sqlite),
      run: Date.now().toString(36),
    };
    const loads = [];
    let index = 0;
    for (const n of sizes)
      for (const kind of ['new', 'update'])
        loads.push(await measureLoad(context, kind, n, index++));

    const result = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryGb: round(totalmem() / 2 ** 30),
        node: process.version,
      },
      scale: values.scale,
      db: source,
      seed: { ...seed, ...seedFigures },
      workspace: WORKSPACE,
      copiedBases: bases,
      targets: TARGETS,
      server: {
        healthyMs,
        firstColumnarMs: first.ms,
        firstPollEngines: first.engines,
        peakRssMb: server.peakRssMb(),
      },
      export: { ...exported, beforeTheLoads: true },
      loads,
    };
    printLoadsTable(result);
    const json = `${JSON.stringify(result, null, 2)}\n`;
    if (values.out) writeFileSync(values.out, json);
    else console.log(json);
  } finally {
    await server?.stop();
    sqlite.close();
    rmSync(filesDir, { recursive: true, force: true });
    if (process.env.BENCH_KEEP === '1') log(`kept ${copy}`);
    else removeCopy(copy);
  }
}

// Run when started as a script; run.mjs imports the table alone.
if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
