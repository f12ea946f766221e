/**
 * `npm test`'s reporter (scripts/concise-reporter.mjs) prints what the README says: a line per test
 * file as it finishes, with its seconds; the skipped tests and suites counted as skipped, and the
 * files that skipped some named; the ten slowest files.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, it } from 'node:test';

const REPORTER = fileURLToPath(new URL('../../../scripts/concise-reporter.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vms-reporter-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('prints a line per file, counts skipped suites, names the files that skipped and the slowest', () => {
  writeFileSync(
    join(dir, 'skips.test.mjs'),
    `import { describe, it } from 'node:test';
describe('needs redis', { skip: 'no redis-server on this machine' }, () => { it('x', () => {}); });
it('plain', () => {});
it('skipped one', { skip: 'why' }, () => {});
`,
  );
  writeFileSync(
    join(dir, 'fails.test.mjs'),
    `import { it } from 'node:test';
import assert from 'node:assert';
it('fails', () => assert.equal(1, 2));
`,
  );
  const quick = Array.from({ length: 10 }, (_, i) => `quick${i}.test.mjs`);
  for (const name of quick)
    writeFileSync(join(dir, name), `import { it } from 'node:test';\nit('passes', () => {});\n`);
  const files = ['skips.test.mjs', 'fails.test.mjs', ...quick];
  const run = spawnSync(
    process.execPath,
    ['--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', ...files],
    // Not as a child of this run's own runner (which sets NODE_TEST_CONTEXT): a run of its own.
    { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
  );
  const out = run.stdout;
  assert.equal(run.status, 1, out);
  for (const file of files.filter((f) => f !== 'fails.test.mjs'))
    assert.match(out, new RegExp(`^✓ ${file.replace('.', '\\.')} \\(\\d+\\.\\d s\\)$`, 'm'));
  assert.match(out, /^✗ fails\.test\.mjs \(\d+\.\d s\)$/m);
  assert.match(
    out,
    /^- skipped: skips\.test\.mjs › needs redis: no redis-server on this machine$/m,
  );
  assert.match(out, /^14 tests: 11 passed, 1 failed, 2 skipped, 0 cancelled in /m);
  assert.match(out, /^skipped in 1 files: skips\.test\.mjs$/m);
  const slowest = out.split('the 10 slowest files:\n')[1]?.split('\n\n')[0].split('\n') ?? [];
  assert.equal(slowest.length, 10, out);
  const seconds = slowest.map((line) => Number(/^\s+([\d.]+) s {2}\S+$/.exec(line)?.[1]));
  assert.ok(
    seconds.every((s) => Number.isFinite(s)),
    out,
  );
  assert.deepEqual(
    seconds,
    [...seconds].sort((a, b) => b - a),
  );
});
