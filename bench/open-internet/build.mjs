// The build under test: this checkout's or another's (`--server-dir`), its CLI and how its
// command runs, the commit it was built from, and an access key minted with it.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { commandOf, mintTokenWith } from '../lib.mjs';
import { WORKSPACE } from './common.mjs';

/** A build's CLI and how its command runs (its first line: environment and Node's flags). */
export function buildOf(serverDir = '.') {
  const dir = resolve(serverDir);
  const cliPath = join(dir, 'dist/src/cli/main.js');
  const git = (...args) => {
    const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  return {
    dir,
    cli: cliPath,
    ...commandOf(cliPath),
    commit: git('rev-parse', 'HEAD'),
    dirty: (git('status', '--porcelain', '--untracked-files=no', '--', 'src') ?? '') !== '',
  };
}

/** A staff access key of the person's workspace with every scope, minted by the build's CLI. */
export const mintKey = (build, db) => mintTokenWith(build.cli, db, WORKSPACE, 'staff');
