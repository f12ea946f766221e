// A CPU load beside the server (issue 56's findings came at machine load 1-4 on 2 cores): N
// child processes that each spin on a core until stopped, and the machine's load average.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === 'spin') {
  // The child: a busy loop, until its parent stops it.
  for (;;);
}

/** Starts `count` busy loops (none for 0); `stop()` ends them. */
export function cpuLoad(count) {
  const children = Array.from({ length: count }, () =>
    fork(fileURLToPath(import.meta.url), ['spin'], { stdio: 'ignore' }),
  );
  return {
    count,
    stop() {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}

/** The one-minute load average now. */
export const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
