// What the benchmarks share: the built CLI, a free port, logging and rounding, the seeded
// database of a scale, waiting for a server to answer, and writing a result file.
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export { freePort } from '../dist/test/support/pg-cluster.js';

export const CLI = 'dist/src/cli/main.js';

/**
 * How a build's `vms-read` command runs (its first line, `#!/usr/bin/env -S NAME=VALUE node
 * --flag …`): the environment it sets and Node's flags. Benchmarks start the server with both, as
 * an operator's `vms-read serve` runs.
 */
export function commandOf(cliPath) {
  const commandLine = readFileSync(cliPath, 'utf8')
    .split('\n', 1)[0]
    .replace(/^#!\S+ -S /, '');
  const [settings, flags] = commandLine.split(/\bnode\b/);
  return {
    env: Object.fromEntries(
      settings
        .split(' ')
        .filter(Boolean)
        .map((pair) => pair.split('=')),
    ),
    flags: flags.split(' ').filter(Boolean),
  };
}

export const { env: COMMAND_ENV, flags: NODE_FLAGS } = commandOf(CLI);

/**
 * `vms-read` as an operator's shell runs it (the command's first line: its environment and
 * Node's flags), for spawning under /usr/bin/time or directly: `args` to follow the Node binary,
 * `env` for the child. A plain `node main.js` would leave out the flags (the heap's young
 * generation unbounded, malloc's arenas many), and its memory would not be the command's.
 */
export function commandRun(cliPath = CLI, args = []) {
  const { env, flags } =
    cliPath === CLI ? { env: COMMAND_ENV, flags: NODE_FLAGS } : commandOf(cliPath);
  return { args: [...flags, cliPath, ...args], env: { ...env, ...process.env } };
}

/** This checkout's build, as `spawnServer` runs it (bench/open-internet/build.mjs: another's). */
const THIS_BUILD = { cli: CLI, env: COMMAND_ENV, flags: NODE_FLAGS, dir: undefined };

/**
 * `vms-read serve --db db --port port` as a child, run as the command runs (its flags and
 * environment), quota off; `env` adds to (or overrides) the environment. `build` (`{ cli, env,
 * flags, dir }`) runs another checkout's build in its folder, `nodeFlags` adds Node flags.
 */
export function spawnServer(
  db,
  port,
  { env = {}, stdio = ['ignore', 'ignore', 'inherit'], build = THIS_BUILD, nodeFlags = [] } = {},
) {
  return spawn(
    process.execPath,
    [...build.flags, ...nodeFlags, build.cli, 'serve', '--db', db, '--port', String(port)],
    {
      cwd: build.dir,
      env: { ...build.env, ...process.env, VMS_READ_QUOTA_PER_MINUTE: '0', ...env },
      stdio,
    },
  );
}

/** Calls `onLine` with each whole line a child's output streams write, as they come. */
export function eachLine(streams, onLine) {
  for (const stream of streams) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) onLine(line);
    });
  }
}

/**
 * A process's memory as the system counts it, in MB: RSS, its peak, and of it the anonymous
 * pages (heaps) and the file pages (code, mapped files); null once the process is gone.
 */
export function processMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
    return { rssMb: mb('VmRSS'), hwmMb: mb('VmHWM'), anonMb: mb('RssAnon'), fileMb: mb('RssFile') };
  } catch {
    return null;
  }
}

/** Every read scope. */
export const ALL_SCOPES = 'read:program,read:financial,read:workforce,read:pii';

/** A token of `role` on `workspace` with every scope (`binding`: `--worker ID` and the like). */
export const mintToken = (db, workspace, role = 'staff', ...binding) =>
  mintTokenWith(CLI, db, workspace, role, ...binding);

/** The same, minted by the CLI at `cliPath` (another checkout's build). */
export function mintTokenWith(cliPath, db, workspace, role = 'staff', ...binding) {
  const args = ['token', 'create', '--db', db, '--workspace', workspace, '--role', role];
  return cli([...args, ...binding, '--scopes', ALL_SCOPES], cliPath).trim();
}

export const log = (...args) => console.error(...args);

/** MCP's `tools/call list_workers` (a page of 50) over HTTP, as a load's request with `headers`. */
export const mcpListWorkers = (headers) => ({
  method: 'POST',
  path: '/mcp',
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'list_workers', arguments: { limit: 50 } },
  }),
  headers: {
    ...headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  },
});

export const round = (x, digits = 1) => Number(x.toFixed(digits));

/**
 * One autocannon run of `seconds` with `connections` against `base`: `pick` gives each
 * request's path (rotating over sample ids); any answer not 2xx, error or timeout throws (or,
 * with `countFailures`, is counted in `failed`). With `pid`, the server's CPU time per request
 * too (cpuMicros).
 */
export async function timedLoad(
  base,
  { method = 'GET', path, pick, body, headers = {} },
  { seconds, connections, pid, countFailures = false },
) {
  let i = 0;
  const cpuFrom = pid === undefined ? 0 : cpuMicros(pid);
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    headers,
    requests: [
      {
        method,
        path,
        body,
        ...(pick
          ? {
              setupRequest: (req) => {
                req.path = pick(i++);
                return req;
              },
            }
          : {}),
      },
    ],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0 && !countFailures)
    throw new Error(`${method} ${path}: ${bad} failed of ${result.requests.total} requests`);
  return {
    ...(countFailures ? { failed: bad } : {}),
    rps: round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ...(pid === undefined ? {} : { cpuUs: (cpuMicros(pid) - cpuFrom) / result.requests.total }),
  };
}

/** CPU time a process has used (all its threads, user and system), in µs. */
export function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime (the stat fields 14 and 15, here 11 and 12) in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Runs `vms-read <args>` (of the CLI at `cliPath`: this build's by default) and returns its
 * stdout; throws with its stderr when it fails.
 */
export function cli(args, cliPath = CLI) {
  const command = commandRun(cliPath, args);
  const result = spawnSync(process.execPath, command.args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: command.env,
  });
  if (result.status !== 0) throw new Error(`vms-read ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** The seed arguments of the benchmarks' database of a scale: fixed, so runs compare. */
export const benchSeed = (scale) => ({ scale, seed: '1', asOf: '2026-06-30' });

/** Where that database lives. */
export const benchDb = (scale) => `bench/data/${scale}.db`;

/** Peak RSS in MB from `/usr/bin/time -v`'s report on stderr. */
export function peakRssMbOf(stderr) {
  return round(Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)[1]) / 1024);
}

/**
 * Seeds `db` with `seed` once and reuses it while the seed arguments are the same (a marker file
 * beside it holds them); returns the seed's figures (of this run, or of the run that seeded it):
 * seconds, rows, rows/s, peak RSS, the columnar copy's seconds. Every benchmark seeds through
 * here, so two of them never seed the same file in different ways; `cliPath` seeds with another
 * checkout's build.
 */
export function ensureSeeded(db, seed, cliPath = CLI) {
  const marker = `${db}.seed.json`;
  const wanted = JSON.stringify(seed);
  if (existsSync(db) && existsSync(marker)) {
    const held = JSON.parse(readFileSync(marker, 'utf8'));
    if (JSON.stringify(held.seed ?? held) === wanted) return held.figures ?? null;
  }
  mkdirSync('bench/data', { recursive: true });
  log(`seeding ${db} (scale ${seed.scale}); reused by later runs`);
  const started = Date.now();
  const command = commandRun(cliPath, [
    'seed',
    '--db',
    db,
    '--scale',
    seed.scale,
    '--seed',
    seed.seed,
    '--as-of',
    seed.asOf,
    '--force',
  ]);
  const result = spawnSync('/usr/bin/time', ['-v', process.execPath, ...command.args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: command.env,
  });
  if (result.status !== 0) throw new Error(`seed failed: ${result.stderr}`);
  const seconds = (Date.now() - started) / 1000;
  const summary = JSON.parse(result.stdout);
  const rows = summary.workspaces.reduce(
    (sum, w) => sum + Object.values(w.counts).reduce((a, b) => a + b, 0),
    0,
  );
  const figures = {
    seconds: round(seconds),
    rows,
    rowsPerSecond: Math.round(rows / seconds),
    peakRssMb: peakRssMbOf(result.stderr),
    columnarCopySeconds: round(
      Number(/written to .* in (\d+) ms/.exec(result.stderr)?.[1] ?? 0) / 1000,
    ),
  };
  writeFileSync(marker, JSON.stringify({ seed, figures }));
  return figures;
}

/**
 * The database a benchmark reads, from its options: `db` as given, else the seeded SQLite file of
 * `scale`, or with `pg` a throwaway PostgreSQL cluster with a database `name` seeded at `scale`
 * (stop `cluster` when done); `cliPath` seeds with another checkout's build.
 */
export async function seededDatabase({ db, scale, pg }, name, cliPath = CLI) {
  if (db) return { db };
  const seed = benchSeed(scale);
  if (!pg) {
    const file = benchDb(scale);
    ensureSeeded(file, seed, cliPath);
    return { db: file };
  }
  const { startCluster } = await import('../dist/test/support/pg-cluster.js');
  const { default: postgres } = await import('pg');
  const cluster = await startCluster();
  const client = new postgres.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = cluster.url.replace(/\/postgres$/, `/${name}`);
  log(`seeding ${url} (scale ${seed.scale})`);
  const started = Date.now();
  cli(
    ['seed', '--db', url, '--scale', seed.scale, '--seed', seed.seed, '--as-of', seed.asOf],
    cliPath,
  );
  log(`seeded in ${round((Date.now() - started) / 1000)} s`);
  return { db: url, cluster };
}

/** Resolves once `url` answers 2xx; a server that does not come up within `seconds` is an error. */
export async function waitFor(url, seconds = 30) {
  for (let i = 0; i < seconds * 10; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** The machine a benchmark ran on, as every result file records it. */
export function machine() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: round(totalmem() / 2 ** 30),
    node: process.version,
  };
}

/** JSON as the repository's prettier formats it (so `prettier --check bench` stays clean). */
export async function writeFormatted(file, value) {
  const json = JSON.stringify(value, null, 2);
  let text = `${json}\n`;
  try {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(file)) ?? {};
    text = await prettier.format(json, { ...options, parser: 'json' });
  } catch {
    // prettier is a dev dependency: plain JSON without it
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(file, text);
}
