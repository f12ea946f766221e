// `node bench/memory-fairness/run.mjs [--pg] [--load N] [--items a,b,c,d] [--runs N]
//   [--breakdown] [--server-dir DIR] [--label L] [--scale small] [--limit-ms 50] [--env N=V]`
//
// Issue 56's findings, each against a server of its own (`vms-read serve` as the command runs it,
// bench/open-internet/server.mjs), on the seeded database of the scale (SQLite, or with --pg a
// throwaway PostgreSQL cluster): (a) four waves of 60 connections that pipeline 8 requests for
// the largest timesheet and vanish, the anonymous memory they leave; (b) 5,000 distinct report
// shapes after 1,000, the anonymous memory they add; (c) 60 connections of one token pipelining
// 8 requests for the largest timesheet and never reading, while another token asks for a page
// of workers, its share of 200s; (d) 64 reports at once against a 50 ms time limit, 10 rounds.
// `--load N` runs N busy loops beside it all (the findings came at machine load 1-4 on 2 cores);
// `--breakdown` adds, after (a) and (b), where the memory is: V8's, malloc's, and what a full
// collection and malloc_trim give back (bench/memory-fairness/breakdown.mjs; gdb for malloc's).
// `--server-dir` runs another checkout's build (the code before). Figures, no assertions; writes
// bench/results/memory-fairness-<label>-<ISO date-time>.json.
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, log, machine, seededDatabase, writeFormatted } from '../lib.mjs';
import { largestTimesheet } from '../attacks.mjs';
import { buildOf, mintKey } from '../open-internet/build.mjs';
import { startServer } from '../open-internet/server.mjs';
import { breakdown, inspectorOf } from './breakdown.mjs';
import { cpuLoad, loadAverage } from './cpu-load.mjs';
import { reportDeadline, reportShapes } from './reports.mjs';
import { unreadPipelines, vanishingWaves } from './unread-answers.mjs';

const { values } = parseArgs({
  options: {
    pg: { type: 'boolean', default: false },
    load: { type: 'string', default: '0' },
    items: { type: 'string', default: 'a,b,c,d' },
    runs: { type: 'string', default: '1' },
    breakdown: { type: 'boolean', default: false },
    'server-dir': { type: 'string' },
    label: { type: 'string', default: 'now' },
    scale: { type: 'string', default: 'small' },
    'limit-ms': { type: 'string', default: '50' },
    env: { type: 'string', multiple: true, default: [] },
    'shape-batches': { type: 'string', default: '1' },
    warmup: { type: 'string', default: '1000' },
  },
});
/** `--env NAME=VALUE` for every server (to see what a setting changes). */
const SERVER_ENV = Object.fromEntries(
  values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const ITEMS = values.items.split(',');
const LOAD = Number(values.load);
const RUNS = Number(values.runs);
const LIMIT_MS = Number(values['limit-ms']);
if (!ITEMS.every((item) => ['a', 'b', 'c', 'd'].includes(item)) || !(RUNS >= 1) || !(LOAD >= 0)) {
  console.error('usage: run.mjs [--pg] [--load N] [--items a,b,c,d] [--runs N] [--breakdown]');
  process.exit(2);
}

/** Runs `measure` against a fresh server of the build (with the inspector for a breakdown). */
async function withServer(build, db, env, measure, { inspect = false, times = false } = {}) {
  const inspectPort = inspect ? await freePort() : null;
  const nodeFlags = [
    ...(inspect ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
    ...(times ? ['--import', ANSWER_TIMES] : []),
  ];
  const server = await startServer(build, db, { ...SERVER_ENV, ...env }, { nodeFlags });
  const inspector = inspect ? await inspectorOf(inspectPort) : null;
  const loadAtStart = loadAverage();
  try {
    const figures = await measure(server);
    if (inspector) figures.breakdown = await breakdown(server.pid, inspector);
    return { loadAtStart, loadAtEnd: loadAverage(), ...figures };
  } finally {
    inspector?.close();
    await server.stop();
  }
}

/** The server's own record of its report answers (answer-times.mjs), for (d). */
const ANSWER_TIMES = fileURLToPath(new URL('./answer-times.mjs', import.meta.url));
process.env.ANSWER_TIMES_FILE = join(tmpdir(), `vms-read-answer-times-${process.pid}.json`);

async function main() {
  const build = buildOf(values['server-dir'] ?? '.');
  const seeded = await seededDatabase({ scale: values.scale, pg: values.pg }, 'memory_fairness');
  const { cluster } = seeded;
  // Absolute: another checkout's server runs in its own folder.
  const db = values.pg ? seeded.db : resolve(seeded.db);
  const load = cpuLoad(LOAD);
  const results = { a: [], b: [], c: [], d: [] };
  try {
    const attacker = mintKey(build, db);
    const victim = mintKey(build, db);
    const timesheet = `/api/v1/timesheets/item?id=${encodeURIComponent(await largestTimesheet(db))}`;
    const inspect = values.breakdown;
    for (let run = 1; run <= RUNS; run++) {
      log(
        `[memory-fairness] run ${run} of ${RUNS}, load ${LOAD}, ${values.pg ? 'PostgreSQL' : 'SQLite'}`,
      );
      if (ITEMS.includes('a'))
        results.a.push(
          await withServer(
            build,
            db,
            {},
            (s) => vanishingWaves(s, { path: timesheet, token: attacker }),
            { inspect },
          ),
        );
      if (ITEMS.includes('b'))
        results.b.push(
          await withServer(
            build,
            db,
            {},
            (s) =>
              reportShapes(s, {
                token: attacker,
                warmup: Number(values.warmup),
                batches: Number(values['shape-batches']),
                malloc: inspect,
              }),
            { inspect },
          ),
        );
      if (ITEMS.includes('c'))
        results.c.push(
          await withServer(build, db, {}, (s) =>
            unreadPipelines(s, {
              path: timesheet,
              token: attacker,
              victimPath: '/api/v1/workers?limit=10',
              victimToken: victim,
            }),
          ),
        );
      if (ITEMS.includes('d'))
        results.d.push(
          await withServer(
            build,
            db,
            { VMS_READ_REPORT_TIMEOUT_MS: String(LIMIT_MS) },
            (s) => reportDeadline(s, { token: attacker, limitMs: LIMIT_MS }),
            { times: true },
          ),
        );
      for (const item of ITEMS)
        log(`  (${item}) ${JSON.stringify(summary(item, results[item].at(-1)))}`);
    }
  } finally {
    load.stop();
    cluster?.destroy();
  }
  const result = {
    date: new Date().toISOString(),
    command: `node bench/memory-fairness/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    build: { commit: build.commit, dirty: build.dirty, dir: build.dir },
    store: values.pg ? 'postgres' : 'sqlite',
    busyLoops: LOAD,
    serverEnv: SERVER_ENV,
    results,
  };
  const file = `bench/results/memory-fairness-${values.label}-${result.date.replace(/[:.]/g, '-')}.json`;
  await writeFormatted(file, result);
  log(`[memory-fairness] written to ${file}`);
}

/** The line printed for an item's run: the figure its finding is about, and the load. */
function summary(item, r) {
  const load = `${r.loadAtStart}-${r.loadAtEnd}`;
  if (item === 'a') return { load, anonGrowthMb: r.anonGrowthMb, answers: r.answersByStatus };
  if (item === 'b')
    return {
      load,
      anonGrowthMb: r.anonGrowthMb,
      later: r.laterBatchesGrowthMb,
      statuses: r.statuses,
    };
  if (item === 'c') return { load, victim: r.victim, attackerAnswers: r.attackerAnswers };
  return {
    load,
    p50Ms: r.p50Ms,
    p90Ms: r.p90Ms,
    maxMs: r.maxMs,
    byOutcome: r.byOutcome,
    answeredPastLimit: r.answeredPastLimit,
    server: r.server,
  };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
