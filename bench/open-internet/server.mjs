// The server under test: `vms-read serve` of the build as its command runs it, its log's
// warnings and errors kept, up once /healthz answers.
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { eachLine, freePort, spawnServer } from '../lib.mjs';
import { sleep } from './common.mjs';
import { request } from './http.mjs';

/**
 * Log lines worth keeping: warnings and errors (the server runs at LOG_LEVEL=warn; lines below
 * warn, at a lower level, are only passed to `onLine`).
 */
function serverLogOf(child, onLine) {
  const kept = { lines: 0, byMessage: {}, first: [], errors: [] };
  eachLine([child.stdout, child.stderr], (line) => {
    if (!line.trim()) return;
    let entry = null;
    try {
      entry = JSON.parse(line);
    } catch {
      // not JSON
    }
    onLine?.(line, entry);
    if ((entry?.level ?? 40) < 40) return;
    kept.lines++;
    const message = String(entry?.msg ?? line).slice(0, 200);
    kept.byMessage[message] = (kept.byMessage[message] ?? 0) + 1;
    if (kept.first.length < 10) kept.first.push(line.slice(0, 600));
    if ((entry?.level ?? 0) >= 50 && kept.errors.length < 10) kept.errors.push(line.slice(0, 1500));
  });
  return kept;
}

/**
 * `vms-read serve` of the build on `db` as its command runs it, quota off, metrics on (for the
 * heap figures), warnings and errors logged; `env` adds to it.
 */
export async function startServer(
  build,
  db,
  env = {},
  { heapSnapshots = false, nodeFlags = [], onLine = null } = {},
) {
  const port = await freePort();
  // Heap snapshots on SIGUSR2 (`--heap-snapshots`), written to bench/data (and removed once read).
  const diagnosticDir = heapSnapshots ? resolve('bench/data/open-internet-heap') : null;
  if (diagnosticDir) mkdirSync(diagnosticDir, { recursive: true });
  const diagnostics = diagnosticDir
    ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${diagnosticDir}`]
    : [];
  const child = spawnServer(db, port, {
    build,
    nodeFlags: [...diagnostics, ...nodeFlags],
    env: { VMS_READ_METRICS: '1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const serverLog = serverLogOf(child, onLine);
  const exited = once(child, 'exit');
  const server = {
    port,
    pid: child.pid,
    base: `http://127.0.0.1:${port}`,
    log: serverLog,
    diagnosticDir,
    exitedEarly: null,
    stopping: false,
    async stop() {
      server.stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  exited.then(([code, signal]) => {
    if (!server.stopping) server.exitedEarly = { code, signal };
  });
  for (let i = 0; i < 1200; i++) {
    if (server.exitedEarly)
      throw new Error(`server exited: ${JSON.stringify(server.exitedEarly)} ${serverLog.first}`);
    const res = await request(null, port, {
      path: '/healthz',
      timeoutMs: 2000,
    });
    if (res.status === 200) return server;
    await sleep(100);
  }
  await server.stop();
  throw new Error('the server did not come up in 120 s');
}
