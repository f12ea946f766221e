// Loads that update (issue 20, item 7): `vms-read import` of N new time entries and of N updated
// timesheets into a copy of the seeded database while a server runs on it, for N of 1, 10,000 and
// 1,000,000: seconds, rows/s and the import's peak RSS, then how long until a report on the
// running server reflects the load from the columnar engine (and whether the row store answered
// meanwhile); and a full export of the biggest workspace through the change feed.
// Usage: npm run build && node bench/loads.mjs [--scale medium|large] [--db F] [--out F]
//        [--rows 1,10000,1000000]
// The seeded database (bench/data/<scale>.db) is never changed: the loads go into
// bench/data/<scale>-loads.db, removed at the end unless BENCH_KEEP=1.
// The server side is in bench/load-server.mjs, the files a load imports in bench/load-files.mjs.
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ENTRY_COLUMNS,
  entryTemplates,
  newEntries,
  runImport,
  statusCounts,
  updatedTimesheets,
  WORKSPACE,
  writeCsv,
} from './load-files.mjs';
import {
  askReport,
  copyDatabase,
  exportFeed,
  foldPolls,
  removeCopy,
  startServer,
  untilReflected,
} from './load-server.mjs';
import {
  benchDb,
  benchSeed,
  cli,
  ensureSeeded,
  log as say,
  machine,
  round,
  waitFor,
} from './lib.mjs';

const log = (message) => say(`[loads] ${message}`);

const SCOPES = 'read:program,read:financial,read:workforce,read:pii';

/** The targets (issue 20), shown beside the figures. */
export const TARGETS = {
  oneRowSeconds: 1,
  tenThousandRowsSeconds: 3,
  millionNewRowsPerSecond: 200_000,
  peakRssMb: 300,
  reflectedMs: 1000, // from the columnar engine, at scale large
  exportRecordsPerSecond: 20_000, // at scale medium
};

// ---------------------------------------------------------------------------------------------
// One load

const TOTAL_ENTRIES = { metrics: ['time_entry_count'], dimensions: [] };
const BY_STATUS = { metrics: ['timesheet_count'], dimensions: ['timesheet_status'] };

/** A dimension's value: plain, or the value inside a provenance envelope. */
const plain = (value) => (value !== null && typeof value === 'object' ? value.value : value);

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
      machine: machine(),
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
