// Runs every compiled test file with node's own runner, the files listed (rather than a glob).
// Starts one throwaway PostgreSQL cluster for the run, so store, report and HTTP tests run on
// both dialects; without the PostgreSQL binaries they run on SQLite alone (in CI that is a failure).
// Seeded test databases and their columnar copies are made once per run (VMS_READ_TEST_TEMPLATES).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const filter = process.argv.slice(2);
const files = testFiles('dist/test')
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}

const TAP_FILE = 'dist/test-results.tap';
const ci = process.env.CI === 'true' || process.env.CI === '1';
let cluster = null;
const env = { ...process.env };
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

// Three files at a time on two cores: with two, the cores stood idle 8 % of a run (files
// waiting on a server's start, a browser, a retry's back-off, PostgreSQL); three fill them
// (3 % idle) and the suite took 895 s against 1,059 s (docs/performance.md, "The suite's time, cut").
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
// A concise report on stdout (one line per file, failures in full, totals) and the whole TAP
// report in a file; TEST_REPORTER=tap (or spec) prints that one instead.
const reporters =
  process.env.TEST_REPORTER !== undefined
    ? [`--test-reporter=${process.env.TEST_REPORTER}`, '--test-reporter-destination=stdout']
    : [
        `--test-reporter=${new URL('./concise-reporter.mjs', import.meta.url).pathname}`,
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${TAP_FILE}`,
      ];
const result = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, ...reporters, ...files],
  { stdio: 'inherit', env },
);
if (process.env.TEST_REPORTER === undefined) console.log(`full TAP report: ${TAP_FILE}`);
cluster?.destroy();
rmSync(templates, { recursive: true, force: true });
process.exit(result.status ?? 1);
