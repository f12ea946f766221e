// Runs every compiled test file with node's own runner (Node 20's --test takes no globs).
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
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
