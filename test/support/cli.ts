import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI entry (tests run from dist/test/...). */
export const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    cwd,
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export { freePort } from './pg-cluster.js';

/** A staff access key of `workspace` with `scopes` (comma-separated), minted by the CLI. */
export function staffKeyByCli(db: string, workspace: string, scopes: string): string {
  const minted = runCli([
    'token',
    'create',
    '--db',
    db,
    '--workspace',
    workspace,
    '--role',
    'staff',
    '--scopes',
    scopes,
  ]);
  if (minted.status !== 0) throw new Error(`token create failed: ${minted.stderr}`);
  return minted.stdout.trim();
}

/** Starts `vms-read <args>` and resolves once GET /healthz answers 200 at the port. */
export async function startServer(
  args: string[],
  port: number,
  env: Record<string, string> = {},
  cwd?: string,
) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.status === 200) return { child, output: () => output };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become ready: ${output}`);
}

export function exitOf(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => {
    // A process ended by a signal has no exit code, but a signal code.
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Counts of report queries by engine, from the server's Prometheus metrics. */
export async function reportsByEngine(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, engine, n] of text.matchAll(
    /^vms_read_report_query_duration_seconds_count\{[^}]*engine="(\w+)"[^}]*\} (\d+)/gm,
  ))
    counts[engine] = (counts[engine] ?? 0) + Number(n);
  return counts;
}

/** What `--import` runs first in a measured CLI: at exit, the process's peak RSS on stderr. */
const REPORT_PEAK_RSS =
  "data:text/javascript,process.on('exit', () => process.stderr.write('\\npeak-rss-kb ' + process.resourceUsage().maxRSS + '\\n'))";

/** `vms-read <args>`, and its peak resident memory in MB (read by the process itself at exit). */
export function runCliMeasured(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--import', REPORT_PEAK_RSS, CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
  const match = /\npeak-rss-kb (\d+)\n$/.exec(result.stderr);
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: match ? result.stderr.slice(0, match.index) : result.stderr,
    peakRssMb: match ? Number(match[1]) / 1024 : NaN,
  };
}
