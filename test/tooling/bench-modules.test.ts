/**
 * `npm run bench [-- --quick]` (bench/run.mjs) imports other benchmark scripts for their tables:
 * imported, a script runs nothing and reads no command line of its own, whatever flags the run
 * was given (`--quick` once stopped the whole run at once: a script parsed it as its own).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const BENCH = new URL('../../../bench/', import.meta.url);
const RUN = fileURLToPath(new URL('run.mjs', BENCH));

/** The benchmark scripts bench/run.mjs imports. */
const imported = [...readFileSync(RUN, 'utf8').matchAll(/^import .* from '\.\/([\w-]+\.mjs)';$/gm)]
  .map((m) => m[1])
  .filter((name) => name !== 'lib.mjs');

it('finds the scripts bench/run.mjs imports for their tables', () => {
  assert.ok(imported.includes('audit-trail.mjs'), imported.join(', '));
  assert.ok(imported.length >= 6, imported.join(', '));
});

for (const name of imported)
  it(`imports bench/${name} under npm run bench's own flags without running it`, () => {
    const url = new URL(name, BENCH).href;
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(url)});`, '--', '--quick'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, '');
  });
