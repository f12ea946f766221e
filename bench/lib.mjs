// What the benchmarks share: the built CLI, a free port, logging and rounding.
import { spawnSync } from 'node:child_process';

export { freePort } from '../dist/test/support/pg-cluster.js';

export const CLI = 'dist/src/cli/main.js';

export const log = (...args) => console.error(...args);

/** Runs `vms-read <args>` and returns its stdout; throws with its stderr when it fails. */
export function cli(args) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`vms-read ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}
