// Runs every compiled test file with node's own runner (Node 20's --test takes no globs).
// Starts one throwaway PostgreSQL cluster for the run, so store, report and HTTP tests run on
// both dialects; without the PostgreSQL binaries they run on SQLite alone (in CI that is a failure).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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
    console.error('PostgreSQL binaries (initdb, pg_ctl) not found: CI must run the PostgreSQL tests');
    process.exit(1);
  } else {
    console.log('PostgreSQL binaries (initdb, pg_ctl) not found: PostgreSQL tests skipped, SQLite only');
  }
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit', env });
cluster?.destroy();
process.exit(result.status ?? 1);
