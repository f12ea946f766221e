// Runs every compiled test file with node's own runner, the files listed (rather than a glob).
// Starts one throwaway PostgreSQL cluster for the run, so store, report and HTTP tests run on
// both dialects; without the PostgreSQL binaries they run on SQLite alone (in CI that is a failure).
// Seeded test databases and their columnar copies are made once per run (VMS_READ_TEST_TEMPLATES).
import { createWriteStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import * as builtInReporters from 'node:test/reporters';
import conciseReporter from './concise-reporter.mjs';

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

/**
 * The longest files of a clean clone's run (ci74, three at a time), started first, longest first:
 * in name order the webhook receiver's 37 s ended a run alone, the other cores idle for its last
 * half-minute. node's runner starts the files `run()` is given in that order (the `--test`
 * command line sorts them by name). A file missing from the list, or one that grew, only starts
 * in its name's turn: the order is a matter of speed, never of what runs.
 */
const LONGEST_FIRST = [
  'store/columnar-patches',
  'web/fitting',
  'web/mcp-app',
  'cli/load-faults',
  'web/records',
  'http/changes',
  'web/dashboard',
  'importer/same-as-two-pass',
  'fuzz/rest',
  'store/columnar-deletions',
  'web/record-search',
  'http/pagination',
  'webhooks/receiver-example',
  'client/client',
  'store/columnar-facts',
  'web/trail-page',
];
const rank = (file) => {
  const at = LONGEST_FIRST.findIndex((name) => file === `dist/test/${name}.test.js`);
  return at < 0 ? LONGEST_FIRST.length : at;
};

const filter = process.argv.slice(2);
const files = testFiles('dist/test')
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort()
  .sort((a, b) => rank(a) - rank(b));
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}

const TAP_FILE = 'dist/test-results.tap';

// A concise report on stdout (one line per file, failures in full, totals) and the whole TAP
// report in a file; TEST_REPORTER=tap (or spec) prints that one instead.
const named = process.env.TEST_REPORTER;
const STREAM_REPORTERS = new Set([builtInReporters.spec, builtInReporters.lcov]);
const reporters =
  named !== undefined
    ? [{ reporter: builtInReporters[named], to: process.stdout }]
    : [
        { reporter: conciseReporter, to: process.stdout },
        { reporter: builtInReporters.tap, to: createWriteStream(TAP_FILE) },
      ];
// Three files at a time on two cores: with two, the cores stood idle 8 % of a run (files
// waiting on a server's start, a browser, a retry's back-off, PostgreSQL); three fill them
// (3 % idle) and the suite took 895 s against 1,059 s (docs/performance.md, "The suite's time, cut").
const concurrency = Number(process.env.TEST_CONCURRENCY ?? '3');
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(
    `TEST_CONCURRENCY=${process.env.TEST_CONCURRENCY}: a whole number of files, 1 or more`,
  );
  process.exit(2);
}
if (reporters.some(({ reporter }) => typeof reporter !== 'function')) {
  console.error(
    `TEST_REPORTER=${named}: not one of node's reporters (spec, tap, dot, junit, lcov)`,
  );
  process.exit(2);
}
const ci = process.env.CI === 'true' || process.env.CI === '1';
let cluster = null;
// The run's settings, for the test processes (which inherit this process's environment).
const env = process.env;
if (process.env.VMS_READ_TEST_DIALECTS !== 'sqlite') {
  const { postgresBinaries, startCluster } = await import('../dist/test/support/pg-cluster.js');
  if (postgresBinaries()) {
    try {
      cluster = await startCluster();
      env.VMS_READ_TEST_PG_URL = cluster.url;
    } catch (error) {
      console.error(`PostgreSQL test cluster failed to start: ${error.message}`);
      process.exit(1);
    }
  } else if (ci) {
    console.error(
      'PostgreSQL binaries (initdb, pg_ctl) not found: CI must run the PostgreSQL tests',
    );
    process.exit(1);
  } else {
    console.log(
      'PostgreSQL binaries (initdb, pg_ctl) not found: PostgreSQL tests skipped, SQLite only',
    );
  }
}

// The tiny seed and its columnar copies, made once for the run by the first test that needs each
// and copied by the rest (test/support/test-databases.ts).
const templates = mkdtempSync(join(tmpdir(), 'vms-read-test-templates-'));
env.VMS_READ_TEST_TEMPLATES = templates;
// Node's compile cache, shared by the run's test processes (and the CLI they start): each of the
// run's 210 processes compiles the same modules (about a quarter of a second of a start).
env.NODE_COMPILE_CACHE ??= join(templates, 'compile-cache');

// node's runner (the `--test` command's own), files started in the order given; each event goes
// to every reporter.
const events = run({ files, concurrency });
const written = reporters.map(({ reporter, to }) => {
  const input = new PassThrough({ objectMode: true });
  // spec and lcov make a stream each, the others are async generators over the events.
  const output = input.compose(STREAM_REPORTERS.has(reporter) ? reporter() : reporter);
  output.pipe(to, { end: to !== process.stdout });
  // Written to `input`, not to `output`'s own writable side: what ends is its readable side.
  return {
    input,
    done: to === process.stdout ? finished(output, { writable: false }) : finished(to),
  };
});
let failed = false;
for await (const event of events) {
  if (event.type === 'test:fail' && !event.data.todo) failed = true;
  for (const { input } of written) input.write(event);
}
for (const { input } of written) input.end();
await Promise.all(written.map(({ done }) => done));
if (named === undefined) console.log(`full TAP report: ${TAP_FILE}`);
cluster?.destroy();
rmSync(templates, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
