import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI } from '../support/cli.js';

/** A Node.js older than 24 on this machine's PATH, outside the project (the machine's own), if any. */
function olderNode(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const node = join(dir, 'node');
    if (!existsSync(node)) continue;
    const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (Number(version.stdout.split('.')[0]) < 24) return node;
  }
  return null;
}

const older = olderNode();

describe('the vms-read command on an older Node.js', () => {
  it(
    'says in one line that it needs Node.js 24 and exits 1, before loading anything',
    { skip: older === null && 'no Node.js older than 24 on this machine to run it with' },
    () => {
      const result = spawnSync(older as string, [CLI, 'workspace', 'list', '--db', 'x.db'], {
        encoding: 'utf8',
      });
      assert.equal(result.status, 1);
      assert.equal(result.stdout, '');
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0], /^vms-read: needs Node\.js 24 or later, and this is 2\d\./);
      // What works in a clone (issue 57): `vms-read` alone is on no PATH there.
      assert.match(lines[0], /npx vms-read … in the project\), which runs it on the Node\.js 24/);
      assert.match(lines[0], /run node dist\/src\/cli\/main\.js …$/);
    },
  );
  it("runs on the project's own Node.js", () => {
    assert.ok(Number(process.versions.node.split('.')[0]) >= 24, process.versions.node);
    const result = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  });
});
