// Report latency on an existing seeded database, in one run: for each typical query on the
// biggest workspace, the service answering from the columnar copy with its rollups and without
// them (VMS_READ_ROLLUPS=off; the two answers must be equal), each with the first query after a
// start warmed as `serve` warms, p50, p95 and the engine's own time for the same compiled SQL;
// then the service on the row store alone, the fastest hand-written SQL on each engine, and
// cached repeats. Prints a table; with --out writes
// JSON. Usage: npm run build && node bench/reports.mjs --db <file | postgres://…> [--runs 21]
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createToken } from '../dist/src/auth/tokens.js';
import { createService, warmService } from '../dist/src/service.js';
import {
  isPostgresUrl,
  openReportFacts,
  openStore,
  writeColumnarFacts,
} from '../dist/src/store/open-store.js';
import { RAW_REPORTS, TYPICAL_QUERIES } from './typical-reports.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    runs: { type: 'string', default: '21' },
    out: { type: 'string' },
  },
});
if (!values.db) throw new Error('--db is required');
const RUNS = Number(values.runs);

const round = (x, digits = 1) => Number(x.toFixed(digits));
const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
};
const log = (message) => console.error(`[reports] ${message}`);

async function timeRuns(runs, work) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times;
}

const store = await openStore(values.db);
const built = await writeColumnarFacts(store, values.db);
if (built.ms > 0) log(`columnar copy written in ${built.ms} ms: ${built.path}`);

// The biggest workspace by time entries: the report target is set for it.
const sizes = await store.all(
  'SELECT workspace_id, COUNT(*) AS n FROM report_time_entries GROUP BY workspace_id ORDER BY n DESC',
);
const workspace = String(sizes[0].workspace_id);
log(`workspace ${workspace}: ${sizes[0].n} time entries`);
const token = await createToken(
  store,
  { workspaceId: workspace, role: 'staff', scopes: ['read:financial', 'read:workforce'] },
  new Date(),
);

/**
 * A service over the store whose reports read `engine` (the columnar copy with or without its
 * rollups, or the row store); records each engine call's SQL and time.
 */
async function serviceOn(engine, cacheReports, rollups = true) {
  const facts = await openReportFacts(store, values.db, { engine, rollups });
  const calls = [];
  const engineOf = facts.reportEngine.bind(facts);
  const recording = Object.create(facts);
  recording.reportEngine = async () => {
    const e = await engineOf();
    return {
      ...e,
      run: async (sql, params, timeoutMs) => {
        const started = performance.now();
        const rows = await e.run(sql, params, timeoutMs);
        calls.push({ engine: e.name, sql, params, ms: performance.now() - started });
        return rows;
      },
    };
  };
  const { app, executor } = await createService({
    store,
    facts: recording,
    quotaPerMinute: 0,
    logger: false,
    cacheReports,
    cacheReads: cacheReports,
    reportTimeoutMs: 60_000,
  });
  // As `serve` starts: warmed before its first request (warmService, src/service.ts).
  const warm = await warmService({ app, executor }, await store.listWorkspaces(), log);
  log(`${engine}: warmed ${warm.queries} reports in ${warm.ms} ms (${warm.failed} failed)`);
  calls.length = 0;
  const ask = async (body) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/reports/query',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: body,
    });
    if (response.statusCode !== 200) throw new Error(response.body.slice(0, 300));
    return JSON.parse(response.body).data;
  };
  return { app, facts, calls, ask, close: async () => (await app.close(), await facts.close()) };
}

// Hand-written SQL on each engine: the row store's raw tables, and the columnar copy.
const RAW_DUCKDB = {
  'spend by supplier and month, one year': `SELECT supplier_ref, substr(invoice_period, 1, 7) AS month, SUM(amount_cents) AS spend
    FROM report_invoice_lines WHERE workspace_id = $ws AND invoice_status IN ('issued', 'pushed')
    AND invoice_period BETWEEN '2025-01-01' AND '2025-12-31' GROUP BY 1, 2 ORDER BY 1, 2`,
  'spend by supplier and month, unaligned range': `SELECT supplier_ref, substr(invoice_period, 1, 7) AS month, SUM(amount_cents) AS spend
    FROM report_invoice_lines WHERE workspace_id = $ws AND invoice_status IN ('issued', 'pushed')
    AND invoice_period BETWEEN '2025-01-15' AND '2025-12-14' GROUP BY 1, 2 ORDER BY 1, 2`,
  'hours by org unit': `SELECT org_unit_key, SUM(minutes) / 60.0 AS hours FROM report_time_entries
    WHERE workspace_id = $ws GROUP BY 1 ORDER BY 1`,
  'invoice count by status': `SELECT status, COUNT(*) AS n FROM invoices WHERE workspace_id = $ws GROUP BY 1 ORDER BY 1`,
};

/** Each typical report on the columnar copy: first after a start, p50, p95, the engine's time. */
async function measureColumnar(rollups) {
  const columnar = await serviceOn('columnar', false, rollups);
  const measured = [];
  for (const [name, body] of Object.entries(TYPICAL_QUERIES)) {
    log(`${name}: columnar, rollups ${rollups ? 'on' : 'off'}`);
    const firstStarted = performance.now();
    const first = await columnar.ask(body);
    const firstMs = performance.now() - firstStarted;
    columnar.calls.length = 0;
    const serviceTimes = await timeRuns(RUNS, () => columnar.ask(body));
    const engineTimes = columnar.calls.map((c) => c.ms);
    const { sql, params, engine } = columnar.calls[0];
    if (engine !== 'duckdb') throw new Error(`answered by ${engine}, not the columnar copy`);
    measured.push({
      name,
      rows: first.rows.length,
      answer: first.rows,
      stats: {
        firstAfterStartMs: round(firstMs),
        p50Ms: quantile(serviceTimes, 0.5),
        p95Ms: quantile(serviceTimes, 0.95),
        engineP50Ms: quantile(engineTimes, 0.5),
        rollup: /FROM (rollup_[a-z_]+)/.exec(sql)?.[1] ?? null,
      },
      compiled: { sql, params },
    });
  }
  await columnar.close();
  return measured;
}

const withRollups = await measureColumnar(true);
const withoutRollups = await measureColumnar(false);
const results = withRollups.map(({ name, rows, answer, stats, compiled }, i) => {
  const off = withoutRollups[i];
  if (JSON.stringify(answer) !== JSON.stringify(off.answer))
    throw new Error(`${name}: the answer with rollups differs from the one without`);
  return {
    name,
    rows,
    columnar: stats,
    columnarNoRollups: off.stats,
    compiled,
    compiledNoRollups: off.compiled,
  };
});

const cached = await serviceOn('columnar', true);
for (const result of results) {
  const body = TYPICAL_QUERIES[result.name];
  await cached.ask(body);
  result.cachedRepeat = { p50Ms: quantile(await timeRuns(RUNS, () => cached.ask(body)), 0.5) };
}
await cached.close();

const row = await serviceOn('row', false);
for (const result of results) {
  log(`${result.name}: row store`);
  const body = TYPICAL_QUERIES[result.name];
  await row.ask(body);
  const times = await timeRuns(Math.min(RUNS, 11), () => row.ask(body));
  result.rowStore = {
    engine: store.dialect.name,
    p50Ms: quantile(times, 0.5),
    p95Ms: quantile(times, 0.95),
  };
}
await row.close();

// Fastest hand-written SQL: DuckDB on the copy, and (SQLite) the row store's raw tables.
const duck = await DuckDBInstance.create(built.path, { access_mode: 'READ_ONLY', threads: '2' });
const connection = await duck.connect();
const sqlite = isPostgresUrl(values.db) ? null : new Database(values.db, { readonly: true });
for (const result of results) {
  const raw = RAW_DUCKDB[result.name];
  await connection.runAndReadAll(raw, { ws: workspace });
  const duckTimes = await timeRuns(RUNS, () => connection.runAndReadAll(raw, { ws: workspace }));
  result.handWritten = { duckdbP50Ms: quantile(duckTimes, 0.5) };
  for (const [stats, compiled] of [
    [result.columnar, result.compiled],
    [result.columnarNoRollups, result.compiledNoRollups],
  ]) {
    const times = await timeRuns(RUNS, () =>
      connection.runAndReadAll(compiled.sql, compiled.params),
    );
    stats.compiledSqlDirectP50Ms = quantile(times, 0.5);
  }
  if (sqlite) {
    const statement = sqlite.prepare(RAW_REPORTS[result.name].replaceAll("'ws_business'", '?'));
    const times = await timeRuns(Math.min(RUNS, 11), () => statement.all(workspace));
    result.handWritten.sqliteP50Ms = quantile(times, 0.5);
  }
  result.serviceOverEngine = round(
    result.columnar.p50Ms / result.columnar.compiledSqlDirectP50Ms,
    2,
  );
  delete result.compiled;
  delete result.compiledNoRollups;
}
connection.closeSync();
duck.closeSync();
sqlite?.close();
await store.close();

const output = { db: values.db, workspace, runs: RUNS, reports: results };
console.table(
  results.map((r) => ({
    report: r.name,
    'first ms': r.columnar.firstAfterStartMs,
    'first/p50': round(r.columnar.firstAfterStartMs / r.columnar.p50Ms, 1),
    rollup: r.columnar.rollup ?? '-',
    'p50 ms': r.columnar.p50Ms,
    'p95 ms': r.columnar.p95Ms,
    'engine SQL ms': r.columnar.compiledSqlDirectP50Ms,
    'p50 ms, rollups off': r.columnarNoRollups.p50Ms,
    'engine SQL ms, rollups off': r.columnarNoRollups.compiledSqlDirectP50Ms,
    'service/engine': r.serviceOverEngine,
    'cached ms': r.cachedRepeat.p50Ms,
    'row store ms': r.rowStore.p50Ms,
    'hand DuckDB ms': r.handWritten.duckdbP50Ms,
    'hand SQLite ms': r.handWritten.sqliteP50Ms ?? '-',
  })),
);
if (values.out) writeFileSync(values.out, `${JSON.stringify(output, null, 2)}\n`);
else console.log(JSON.stringify(output, null, 2));
