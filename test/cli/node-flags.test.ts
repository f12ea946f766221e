/**
 * The `vms-read` command runs Node as its first line says (`#!/usr/bin/env -S NAME=VALUE node
 * --flag …`): a heap ceiling of 1 GB and a small young generation, so V8 collects garbage before
 * it takes hundreds of megabytes, and two malloc arenas (see docs/operations.md, "Memory").
 * `npm start` runs the same, and the line works as written.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const COMMAND = 'dist/src/cli/main.js';
const firstLine = readFileSync(COMMAND, 'utf8').split('\n', 1)[0];
/** What follows `env -S`: settings, `node` and its flags. */
const command = firstLine.replace(/^#!\/usr\/bin\/env -S /, '');

describe('the Node flags of the vms-read command', () => {
  it('sets a heap ceiling on its first line', () => {
    assert.match(firstLine, /^#!\/usr\/bin\/env -S (\w+=\S+ )*node /);
    assert.match(command, / --max-old-space-size=\d+/);
  });

  it('runs as written: the command starts by its first line alone', () => {
    const run = spawnSync(COMMAND, ['--version'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /\d+\.\d+\.\d+/);
  });

  it('is what npm start runs too', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.ok(scripts.start.endsWith(`&& ${command} ${COMMAND} demo`), scripts.start);
  });
});
