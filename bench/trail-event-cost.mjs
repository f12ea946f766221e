// Issue 59: the event loop's share of an access-trail event (made, hashed, handed over) and the
// bytes an event takes in the `-audit` file, for a cached get, a list page of 50 and a report.
// `node bench/trail-event-cost.mjs [--events N] [--rounds N] [--builds dirA,dirB] [--kinds get,list,report]
// [--out file]`:
// each build's dist/ in turn (the round's first alternating), over a fresh SQLite file each: the
// answered requests are taken once from a test harness, then given to a new AuditTrail N times
// (new request ids, times a few ms apart), 200 per turn of the event loop as a server would, and
// written as the server writes them (a build with the trail's thread: through it, else through the
// store's writer thread). The event loop's share of an event is the main
// thread's own CPU time over the run (/proc/self/task/<pid>/schedstat: time on a core, so not the
// time a busy machine kept it waiting for one) divided by N, and every thread's CPU time (the
// writer's too: what an event costs the cores) divided by N; beside it its busy wall time
// (eventLoopUtilization), which a loaded machine inflates. dbstat's pages of each table over N
// are its bytes.
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as setImmediateAsync } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { log, machine, round, writeFormatted } from './lib.mjs';
import { TYPICAL_QUERIES } from './typical-reports.mjs';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    builds: { type: 'string', default: '.' },
    kinds: { type: 'string', default: 'get,list,report' },
    out: { type: 'string' },
  },
});
const EVENTS = Number(values.events);
const ROUNDS = Number(values.rounds);
const builds = values.builds.split(',').map((dir) => resolve(dir));
const PER_TURN = 200;
const KINDS = values.kinds.split(',');

/**
 * The answered requests of a list page of 50, a get and a report, as a server hands them to its
 * trail.
 */
async function capture(build) {
  const { startHarness, get, post } = await import(`${build}/dist/test/support/harness.js`);
  const h = await startHarness({ dialect: 'sqlite', audit: true });
  const captured = [];
  const deps = h.executor.deps;
  const trail = deps.answers;
  deps.answers = { answered: (request) => captured.push(request) };
  const [worker] = await h.all(
    'SELECT id FROM workers WHERE workspace_id = ? LIMIT 1',
    'ws_business',
  );
  await get(h.app, '/api/v1/workers?limit=50', h.tokens.staff);
  await get(h.app, `/api/v1/workers/item?id=${worker.id}`, h.tokens.staff);
  await post(h.app, '/api/v1/reports/query', h.tokens.staff, REPORT);
  deps.answers = trail;
  await h.close();
  return { list: captured[0], get: captured[1], report: captured[2] };
}

/** The bench's first typical report (bench/typical-reports.mjs), as a cached repeat sends it. */
const [[, REPORT]] = Object.entries(TYPICAL_QUERIES);

const tick = () => setImmediateAsync();

/** The main thread's time on a core so far (ns). */
const mainThreadNs = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);

/** One run: N events of `request` into a fresh trail; µs of the event loop and bytes per event. */
async function run(build, request) {
  const { SqliteStore } = await import(`${build}/dist/src/store/sqlite/sqlite-store.js`);
  const { AuditTrail } = await import(`${build}/dist/src/audit/trail.js`);
  const dir = mkdtempSync(join(tmpdir(), 'trail-cost-'));
  const file = join(dir, 'trail.db');
  const store = new SqliteStore(file);
  await store.migrate();
  // As the server makes it: on a thread of its own where the build has one (issue 59, item 3).
  const trail = new AuditTrail(store.auditTrail(), { thread: store.auditWriterTarget?.() });
  const start = Date.now();
  const before = performance.eventLoopUtilization();
  const cpuBefore = mainThreadNs();
  const processBefore = process.cpuUsage();
  for (let i = 0; i < EVENTS; i++) {
    trail.answered({ ...request, requestId: `req_${i}`, at: start + Math.floor(i / 10) });
    if (i % PER_TURN === PER_TURN - 1) await tick();
  }
  await trail.flushAll();
  const used = performance.eventLoopUtilization(before);
  const cpuNs = mainThreadNs() - cpuBefore;
  const processCpu = process.cpuUsage(processBefore);
  await trail.close();
  await store.close();
  const db = new Database(`${file}-audit`, { readonly: true });
  const pages = db
    .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY name')
    .all();
  const events = db.prepare('SELECT COUNT(*) AS n FROM audit_events').get().n;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  const bytes = pages.reduce((sum, p) => sum + p.bytes, 0);
  return {
    events,
    loopCpuUsPerEvent: round(cpuNs / 1000 / EVENTS, 2),
    // Every thread's CPU (the writer's included): what an event costs the machine's cores.
    allCpuUsPerEvent: round((processCpu.user + processCpu.system) / EVENTS, 2),
    loopUsPerEvent: round((used.active * 1000) / EVENTS),
    bytesPerEvent: round(bytes / events),
    tables: Object.fromEntries(pages.map((p) => [p.name, round(p.bytes / events)])),
  };
}

async function main() {
  const requests = new Map();
  for (const build of builds) requests.set(build, await capture(build));
  const results = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const kind of KINDS)
      for (const build of order) {
        const figures = await run(build, requests.get(build)[kind]);
        log(`${kind} ${build}: ${JSON.stringify(figures)}`);
        results.push({ round: r, kind, build, ...figures });
      }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const summary = builds.flatMap((build) =>
    KINDS.map((kind) => {
      const mine = results.filter((x) => x.build === build && x.kind === kind);
      return {
        build,
        kind,
        loopCpuUsPerEvent: median(mine.map((x) => x.loopCpuUsPerEvent)),
        allCpuUsPerEvent: median(mine.map((x) => x.allCpuUsPerEvent)),
        loopUsPerEvent: median(mine.map((x) => x.loopUsPerEvent)),
        bytesPerEvent: median(mine.map((x) => x.bytesPerEvent)),
        tables: mine[0].tables,
      };
    }),
  );
  console.table(summary.map(({ tables: _tables, ...rest }) => rest));
  const out =
    values.out ??
    `bench/results/trail-event-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFormatted(out, {
    machine: machine(),
    events: EVENTS,
    rounds: ROUNDS,
    summary,
    results,
  });
  log(`wrote ${out}`);
}

await main();
