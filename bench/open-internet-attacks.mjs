// Issue 44, "On the open internet": four attacks on the server as anyone on the internet could
// make them, each against a server of its own on a fresh copy of the seeded database, with
// figures and the targets beside them (a benchmark: a MISS is reported, never fatal).
//
// 1. registration flood from one address: 1,000 POST /oauth/register paced over a minute, while
//    another client (an address of its own) signs a person in again and again (authorize, the
//    sign-in page, consent, the code exchanged) and refreshes its token;
// 2. registration flood from 100 addresses behind a trusted proxy: 5,000 registrations, each
//    with `X-Forwarded-For: 198.51.100.N`, the same client beside them;
// 3. the same client (and a registration, and /healthz) while `vms-read import` loads 1,000,000
//    new time entries into the database the server reads;
// 4. anonymous reading flood: 200 keep-alive connections from one address read /openapi.json
//    without a token as fast as they can, while a token holder lists workers one at a time.
//
// Attacks 1 and 2 run the server with VMS_READ_TRUSTED_PROXIES=127.0.0.1, so that one loopback
// load generator can be many addresses through X-Forwarded-For: in attack 1 the attacker is
// 198.51.100.1 and the person signing in 203.0.113.2. A build without trusted proxies (before
// issue 44) ignores the header: everything is 127.0.0.1 there, which is the comparison.
//
// Figures: answers by status; the other client's latencies (p50/p99/max, count, failures), alone
// before the attack and during it; the database's growth (SQLite: the database file and every
// file beside it, `-wal`, `-shm`, the authorization server's own `-oauth`, `-oauth-wal`,
// `-oauth-shm`; PostgreSQL: pg_database_size) and the authorization records by kind; the server's
// RSS before, peak and after, and its V8 heap and external memory from /metrics.
//
// Alone: `npm run build && node bench/open-internet-attacks.mjs [--server-dir DIR] [--pg]
//   [--scale small] [--attacks 1,2,3,4] [--flood-seconds 60] [--import-rows 1000000]
//   [--label before] [--out FILE] [--heap-snapshots]`; `--server-dir` runs the server (and the
// CLI: seed, token, import) of another checkout's build, e.g. the build before this work;
// `--heap-snapshots` adds, in attacks 1 and 2, what grew in the server's live heap. Writes
// bench/results/open-internet-<label>-<ISO date-time>.json. `npm run soak -- --attacks only`
// (or `on`) runs them too, after its own attacks, on its database (`--pg`: its PostgreSQL).
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ENTRY_COLUMNS,
  newEntries,
  WORKSPACE as IMPORT_WORKSPACE,
  writeCsv,
} from './load-files.mjs';
import { ALL_SCOPES, freePort, log as say, machine, processMemory } from './lib.mjs';

const log = (message) => say(`[open-internet] ${message}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, digits = 1) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
const percentile = (xs, p) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const MB = 2 ** 20;

/** The issue's targets, printed beside the figures. */
export const TARGETS = {
  dbGrowthMb: 5,
  rssGrowthMb: 50,
  victimP99Ms: 1000,
};

/** The workspace whose access key signs the person in (the import loads load-files' own). */
const WORKSPACE = 'ws_business';
const CALLBACK = 'http://127.0.0.1:1/callback';
const SIGN_IN_SCOPE = 'read:workforce offline_access';
/** The attacker's and the person's addresses, as the trusted proxy reports them. */
const ATTACKER = '198.51.100.1';
const PERSON = '203.0.113.2';
const floodAddress = (n) => `198.51.100.${1 + (n % 100)}`;
/** Attack 3's registrations, each from the next of these (a client registers once). */
const registrantAddress = (n) => `203.0.113.${100 + (n % 50)}`;

/**
 * The person's pace: a sign-in (about ten requests without a credential) and two refreshes every
 * 1.5 s, about 450 requests a minute: under the 600 a minute an address may make without a
 * credential, and 40 authorization requests a minute (300 an hour: fine for the few minutes one
 * server lives). A person signs in far less often; the pace is for enough samples.
 */
const CYCLE_MS = 1500;
const REFRESHES_PER_CYCLE = 2;

// ---------------------------------------------------------------------------------------------
// The build under test: its CLI, its server

/** A build's CLI and how its command runs (its first line: environment and Node's flags). */
export function buildOf(serverDir = '.') {
  const dir = resolve(serverDir);
  const cliPath = join(dir, 'dist/src/cli/main.js');
  const commandLine = readFileSync(cliPath, 'utf8')
    .split('\n', 1)[0]
    .replace(/^#!\S+ -S /, '');
  const [settings, flags] = commandLine.split(/\bnode\b/);
  const git = (...args) => {
    const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  return {
    dir,
    cli: cliPath,
    env: Object.fromEntries(
      settings
        .split(' ')
        .filter(Boolean)
        .map((pair) => pair.split('=')),
    ),
    flags: flags.split(' ').filter(Boolean),
    commit: git('rev-parse', 'HEAD'),
    dirty: (git('status', '--porcelain', '--untracked-files=no', '--', 'src') ?? '') !== '',
  };
}

/** `vms-read <args>` of the build; its stdout, or an error with its stderr. */
function cliOf(build, args) {
  const result = spawnSync(process.execPath, [build.cli, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * MB,
  });
  if (result.status !== 0) throw new Error(`vms-read ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

const mintKey = (build, db) =>
  cliOf(build, [
    'token',
    'create',
    '--db',
    db,
    '--workspace',
    WORKSPACE,
    '--role',
    'staff',
    '--scopes',
    ALL_SCOPES,
  ]).trim();

/** Log lines worth keeping: warnings and errors (the server runs at LOG_LEVEL=warn). */
function serverLogOf(child) {
  const kept = { lines: 0, byMessage: {}, first: [], errors: [] };
  const onData = (stream) => {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const line of lines) {
        if (!line.trim()) continue;
        kept.lines++;
        let entry = null;
        try {
          entry = JSON.parse(line);
        } catch {
          // not JSON
        }
        const message = String(entry?.msg ?? line).slice(0, 200);
        kept.byMessage[message] = (kept.byMessage[message] ?? 0) + 1;
        if (kept.first.length < 10) kept.first.push(line.slice(0, 600));
        if ((entry?.level ?? 0) >= 50 && kept.errors.length < 10)
          kept.errors.push(line.slice(0, 1500));
      }
    });
  };
  onData(child.stdout);
  onData(child.stderr);
  return kept;
}

/**
 * `vms-read serve` of the build on `db` as its command runs it, quota off, metrics on (for the
 * heap figures), warnings and errors logged; `env` adds to it.
 */
async function startServer(build, db, env = {}, { heapSnapshots = false } = {}) {
  const port = await freePort();
  // Heap snapshots on SIGUSR2 (`--heap-snapshots`), written to bench/data (and removed once read).
  const diagnosticDir = heapSnapshots ? resolve('bench/data/open-internet-heap') : null;
  if (diagnosticDir) mkdirSync(diagnosticDir, { recursive: true });
  const diagnostics = diagnosticDir
    ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${diagnosticDir}`]
    : [];
  const child = spawn(
    process.execPath,
    [...build.flags, ...diagnostics, build.cli, 'serve', '--db', db, '--port', String(port)],
    {
      cwd: build.dir,
      env: {
        ...build.env,
        ...process.env,
        VMS_READ_QUOTA_PER_MINUTE: '0',
        VMS_READ_METRICS: '1',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const serverLog = serverLogOf(child);
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

// ---------------------------------------------------------------------------------------------
// HTTP, on agents of our own (so that the attacker's connections are never the victim's)

/**
 * One request; resolves (never rejects) with the status (0 when there was no answer, `error`
 * saying why), the headers, the body as text (or only its size, `discard`) and the time taken.
 */
function request(
  agent,
  port,
  { method = 'GET', path, headers = {}, body, timeoutMs = 30_000, discard = false, onSocket },
) {
  return new Promise((resolvePromise) => {
    const started = performance.now();
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      resolvePromise({ ms: performance.now() - started, ...result });
    };
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: agent ?? false,
        headers: {
          ...headers,
          ...(payload ? { 'content-length': String(payload.length) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        let bytes = 0;
        res.on('data', (chunk) => {
          bytes += chunk.length;
          if (!discard) chunks.push(chunk);
        });
        res.on('end', () =>
          finish({
            status: res.statusCode,
            headers: res.headers,
            text: discard ? '' : Buffer.concat(chunks).toString('utf8'),
            bytes,
          }),
        );
        res.on('error', (error) => finish({ status: 0, error: error.code ?? error.message }));
      },
    );
    if (onSocket) req.on('socket', onSocket);
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })),
    );
    req.on('error', (error) => finish({ status: 0, error: error.code ?? error.message }));
    req.end(payload);
  });
}

const agentOf = (maxSockets) => new http.Agent({ keepAlive: true, maxSockets });
const forwardedFor = (address) => (address ? { 'x-forwarded-for': address } : {});

/** Latencies of one kind of request: when each started, how long it took, whether it worked. */
function series() {
  const samples = [];
  return {
    samples,
    add(at, ms, ok, why, steps) {
      samples.push({ at, ms, ok, why, steps });
    },
    /** Figures of the samples that started within [from, to] (all of them by default). */
    summary(from = -Infinity, to = Infinity) {
      const within = samples.filter((s) => s.at >= from && s.at <= to);
      const ms = within.filter((s) => s.ok).map((s) => s.ms);
      const failures = {};
      for (const s of within) if (!s.ok) failures[s.why] = (failures[s.why] ?? 0) + 1;
      return {
        n: within.length,
        failed: within.length - ms.length,
        ...(Object.keys(failures).length ? { failures } : {}),
        p50Ms: round(percentile(ms, 50)),
        p99Ms: round(percentile(ms, 99)),
        maxMs: ms.length ? round(Math.max(...ms)) : null,
        // For a request made of steps (a sign-in): the slowest three, step by step (ms).
        ...(within.some((s) => s.steps)
          ? {
              slowest: [...within]
                .sort((a, b) => b.ms - a.ms)
                .slice(0, 3)
                .map((s) => ({
                  ms: round(s.ms),
                  steps: s.steps.map(([step, stepMs]) => `${step} ${round(stepMs)}`).join(', '),
                })),
            }
          : {}),
      };
    },
  };
}

const registrationBody = (n) =>
  JSON.stringify({
    client_name: `An app ${n}`,
    redirect_uris: [CALLBACK],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });

function register(agent, port, address, n) {
  return request(agent, port, {
    method: 'POST',
    path: '/oauth/register',
    headers: { 'content-type': 'application/json', ...forwardedFor(address) },
    body: registrationBody(n),
  });
}

// ---------------------------------------------------------------------------------------------
// A person signing in through the built-in server's pages, over plain HTTP

/** The form a person fills in on the page: the access key on sign-in, "Allow" on consent. */
function answerPage(html, url, key) {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) return null;
  const target = new URL(action.replaceAll('&amp;', '&'), url);
  if (html.includes('name="key"')) return { action: target, fields: { key } };
  if (html.includes('name="decision"')) return { action: target, fields: { decision: 'allow' } };
  return null;
}

/**
 * A client of the built-in server used by a person at `address` (through the trusted proxy): it
 * registers once, then signs the person in with `key` (authorize with PKCE S256 and `resource`,
 * the redirects followed with the cookies kept, the sign-in and consent forms sent, the code
 * exchanged) and refreshes its token, at the pace above, until `stop()`. Counts its requests.
 */
function person({ port, address, key }) {
  const agent = agentOf(2);
  const base = `http://127.0.0.1:${port}`;
  const signIns = series();
  const refreshes = series();
  const state = {
    requests: 0,
    client: null,
    refreshToken: null,
    running: true,
  };
  const send = (options) => {
    state.requests++;
    return request(agent, port, {
      ...options,
      headers: { ...forwardedFor(address), ...options.headers },
    });
  };
  const form = (fields) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  // The steps of the sign-in under way and their times: authorize, the sign-in page, the key
  // sent, back to authorize, the consent page, allowed, back to authorize, the code exchanged.
  let steps = [];
  const pageOf = (url) => {
    const [, , kind, uid] = url.pathname.split('/');
    return kind === 'authorize' ? (uid ? 'resume' : 'authorize') : 'page';
  };
  const step = async (name, options) => {
    const res = await send(options);
    steps.push([name, res.ms]);
    return res;
  };
  const signIn = async () => {
    steps = [];
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${base}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: state.client.client_id,
      redirect_uri: CALLBACK,
      scope: SIGN_IN_SCOPE,
      state: randomBytes(8).toString('hex'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: base,
      prompt: 'consent',
    }))
      url.searchParams.set(name, value);
    const cookies = new Map();
    let next = { url };
    for (let hop = 0; hop < 20; hop++) {
      const posted = next.fields ? form(next.fields) : { headers: {} };
      const res = await step(next.fields ? next.url.pathname.split('/').pop() : pageOf(next.url), {
        ...posted,
        path: next.url.pathname + next.url.search,
        headers: {
          ...posted.headers,
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
      });
      if (res.status === 0) return { why: `no answer (${res.error})` };
      for (const line of res.headers['set-cookie'] ?? []) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        const name = pair.slice(0, at).trim();
        if (pair.slice(at + 1) === '' || /expires=Thu, 01 Jan 1970/i.test(line))
          cookies.delete(name);
        else cookies.set(name, pair.slice(at + 1));
      }
      const location = res.headers.location;
      if (location) {
        const target = new URL(location, next.url);
        if (target.href.startsWith(CALLBACK)) {
          const code = target.searchParams.get('code');
          if (!code)
            return {
              why: `back without a code: ${target.search.slice(0, 80)}`,
            };
          const tokens = await step('token', {
            path: '/oauth/token',
            ...form({
              grant_type: 'authorization_code',
              code,
              redirect_uri: CALLBACK,
              client_id: state.client.client_id,
              code_verifier: verifier,
            }),
          });
          return tokenAnswer(tokens, 'code exchange');
        }
        next = { url: target };
        continue;
      }
      const reply = res.status === 200 ? answerPage(res.text, next.url, key) : null;
      if (!reply) {
        const title = /<h1>([^<]*)<\/h1>/.exec(res.text)?.[1] ?? reasonOf(res.text);
        return {
          why: `stopped on ${next.url.pathname.split('/')[2]}: ${res.status} (${title})`,
        };
      }
      next = { url: reply.action, fields: reply.fields };
    }
    return { why: 'too many redirects' };
  };
  const tokenAnswer = (res, step) => {
    if (res.status !== 200)
      return {
        why: `${step}: ${res.status || res.error}${res.status >= 500 ? ` ${reasonOf(res.text)}` : ''}`,
      };
    const body = JSON.parse(res.text);
    if (!body.access_token || !body.refresh_token) return { why: `${step}: no tokens` };
    state.refreshToken = body.refresh_token;
    return { ok: true };
  };
  const refresh = async () => {
    const res = await send({
      path: '/oauth/token',
      ...form({
        grant_type: 'refresh_token',
        refresh_token: state.refreshToken,
        client_id: state.client.client_id,
      }),
    });
    return tokenAnswer(res, 'refresh');
  };
  const timed = async (into, what) => {
    const at = Date.now();
    const started = performance.now();
    const outcome = await what();
    into.add(at, performance.now() - started, Boolean(outcome.ok), outcome.why, outcome.steps);
    return outcome;
  };

  const loop = (async () => {
    while (state.running && !state.client) {
      const res = await send({
        method: 'POST',
        path: '/oauth/register',
        headers: { 'content-type': 'application/json' },
        body: registrationBody('of the person'),
      });
      if (res.status === 201) state.client = JSON.parse(res.text);
      else await sleep(1000);
    }
    while (state.running) {
      const cycleStart = Date.now();
      const signedIn = await timed(signIns, async () => ({ ...(await signIn()), steps }));
      for (let r = 0; r < REFRESHES_PER_CYCLE && signedIn.ok && state.running; r++) {
        await sleep((CYCLE_MS / (REFRESHES_PER_CYCLE + 1)) * (r + 1) - (Date.now() - cycleStart));
        await timed(refreshes, refresh);
      }
      await sleep(CYCLE_MS - (Date.now() - cycleStart));
    }
  })();
  return {
    signIns,
    refreshes,
    state,
    async stop() {
      state.running = false;
      await loop;
      agent.destroy();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What the server holds: its database's size, its records, its memory

/** The files of a SQLite database, the authorization server's own file and their sidecars. */
const SQLITE_FILES = ['', '-wal', '-shm', '-journal', '-oauth', '-oauth-wal', '-oauth-shm'];

async function databaseSize(store) {
  if (store.kind === 'sqlite') {
    const files = {};
    let total = 0;
    for (const suffix of SQLITE_FILES) {
      const file = `${store.db}${suffix}`;
      if (!existsSync(file)) continue;
      const size = statSync(file).size;
      files[basename(file)] = size;
      total += size;
    }
    return { bytes: total, files };
  }
  const rows = await pgQuery(store.db, 'SELECT pg_database_size(current_database()) AS bytes');
  return { bytes: Number(rows[0].bytes) };
}

/** The authorization server's records by kind (oidc-provider's model): how many, payload bytes. */
async function oauthRecords(store) {
  const sql =
    'SELECT model, COUNT(*) AS n, SUM(LENGTH(payload)) AS bytes FROM oauth_records GROUP BY model ORDER BY model';
  try {
    let rows;
    if (store.kind === 'sqlite') {
      const file = existsSync(`${store.db}-oauth`) ? `${store.db}-oauth` : store.db;
      const sqlite = new Database(file, {
        readonly: true,
        fileMustExist: true,
      });
      try {
        sqlite.pragma('busy_timeout = 5000');
        rows = sqlite.prepare(sql).all();
      } finally {
        sqlite.close();
      }
    } else rows = await pgQuery(store.db, sql);
    return Object.fromEntries(
      rows.map((r) => [r.model, { n: Number(r.n), bytes: Number(r.bytes) }]),
    );
  } catch (error) {
    return { error: error.message };
  }
}

async function pgQuery(url, sql, params = []) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The server's V8 heap and memory outside it, in MB, from its /metrics (prom-client's). */
async function heapOf(port) {
  const res = await request(null, port, {
    path: '/metrics',
    timeoutMs: 10_000,
  });
  if (res.status !== 200) return null;
  const value = (name) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(res.text);
    return match ? round(Number(match[1]) / MB) : null;
  };
  return {
    heapUsedMb: value('nodejs_heap_size_used_bytes'),
    heapTotalMb: value('nodejs_heap_size_total_bytes'),
    externalMb: value('nodejs_external_memory_bytes'),
  };
}

/** The server's RSS every 250 ms until stopped: the samples, their peak within a window. */
function rssSampler(pid) {
  const samples = [];
  const take = () => {
    const m = processMemory(pid);
    if (m) samples.push({ at: Date.now(), mb: m.rssMb, anonMb: m.anonMb });
  };
  take();
  const timer = setInterval(take, 250);
  return {
    now: () => round(processMemory(pid)?.rssMb),
    peak: (from = -Infinity, to = Infinity, key = 'mb') =>
      round(Math.max(...samples.filter((s) => s.at >= from && s.at <= to).map((s) => s[key]))),
    stop: () => clearInterval(timer),
    samples,
  };
}

/** Where the server stands: RSS (and its anonymous part), heap, database size, records. */
async function snapshot(server, store) {
  const memory = processMemory(server.pid);
  return {
    rssMb: round(memory?.rssMb),
    anonMb: round(memory?.anonMb),
    ...(await heapOf(server.port)),
    db: await databaseSize(store),
    records: await oauthRecords(store),
  };
}

const growthMb = (before, after) => round((after.db.bytes - before.db.bytes) / MB, 2);

/** The records' payloads added between two snapshots, all kinds, in KB. */
function recordPayloadKbAdded(before, after) {
  const sum = (records) =>
    Object.values(records).reduce(
      (total, r) => total + (typeof r.bytes === 'number' ? r.bytes : 0),
      0,
    );
  return round((sum(after.records) - sum(before.records)) / 1024);
}

/** Records of each kind added between two snapshots. */
function recordsAdded(before, after) {
  const added = {};
  for (const [model, { n }] of Object.entries(after.records))
    if (typeof n === 'number') added[model] = n - (before.records[model]?.n ?? 0);
  return added;
}

/**
 * A heap snapshot of the server (it was started with `heapSnapshots`): SIGUSR2, the file Node
 * writes once it stops growing, read and removed. A snapshot holds what is alive after a full
 * collection: its size, and its objects by constructor (other nodes by their V8 type).
 */
async function heapSnapshot(server) {
  const dir = server.diagnosticDir;
  const known = new Set(readdirSync(dir));
  process.kill(server.pid, 'SIGUSR2');
  let file = null;
  let size = -1;
  let stableSince = 0;
  for (let i = 0; i < 1200 && !file; i++) {
    await sleep(250);
    const fresh = readdirSync(dir).find((f) => !known.has(f) && f.endsWith('.heapsnapshot'));
    if (!fresh) continue;
    const now = statSync(join(dir, fresh)).size;
    if (now !== size || now === 0) {
      size = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince > 2000) file = join(dir, fresh);
  }
  if (!file) return null;
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file, { force: true });
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[fields.indexOf('type')];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byName = {};
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const bytes = snap.nodes[i + sizeAt];
    total += bytes;
    const type = types[snap.nodes[i + typeAt]];
    const name = type === 'object' ? snap.strings[snap.nodes[i + nameAt]] : `(${type})`;
    const entry = (byName[name] ??= { n: 0, bytes: 0 });
    entry.n++;
    entry.bytes += bytes;
  }
  return { liveMb: round(total / MB), byName };
}

/** What grew between two heap snapshots: the live heap, and the 12 kinds that grew most. */
function heapGrowth(before, after) {
  if (!before || !after) return null;
  const grew = Object.entries(after.byName)
    .map(([name, a]) => {
      const b = before.byName[name] ?? { n: 0, bytes: 0 };
      return {
        name,
        objects: a.n - b.n,
        kb: round((a.bytes - b.bytes) / 1024),
      };
    })
    .sort((x, y) => y.kb - x.kb)
    .slice(0, 12);
  return { liveMbBefore: before.liveMb, liveMbAfter: after.liveMb, grew };
}

// ---------------------------------------------------------------------------------------------
// Fresh databases, one per attack

/**
 * A copy of the seeded SQLite database (and whatever lies beside it, and its columnar base
 * copies), or on PostgreSQL a database made from it as a template; `remove()` when done.
 */
function freshDatabase(source, name) {
  if (source.kind === 'sqlite') {
    const db = resolve(`bench/data/${name}.db`);
    const remove = () => {
      for (const suffix of SQLITE_FILES) rmSync(`${db}${suffix}`, { force: true });
      rmSync(`${db}.facts`, { recursive: true, force: true });
    };
    remove();
    for (const suffix of SQLITE_FILES)
      if (existsSync(`${source.db}${suffix}`) && statSync(`${source.db}${suffix}`).size > 0)
        copyFileSync(`${source.db}${suffix}`, `${db}${suffix}`);
    if (existsSync(`${source.db}.facts`)) {
      const bases = readdirSync(`${source.db}.facts`).filter((f) => /^base-.*\.duckdb$/.test(f));
      if (bases.length) mkdirSync(`${db}.facts`);
      for (const f of bases) copyFileSync(join(`${source.db}.facts`, f), join(`${db}.facts`, f));
    }
    return {
      kind: 'sqlite',
      db,
      remove: async () => (process.env.BENCH_KEEP ? null : remove()),
    };
  }
  const dbName = name.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
  const admin = source.admin;
  return (async () => {
    await pgQuery(admin, `DROP DATABASE IF EXISTS ${dbName}`);
    await pgQuery(admin, `CREATE DATABASE ${dbName} TEMPLATE ${source.name}`);
    return {
      kind: 'postgresql',
      db: Object.assign(new URL(admin), { pathname: `/${dbName}` }).href,
      remove: () => pgQuery(admin, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`),
    };
  })();
}

// ---------------------------------------------------------------------------------------------
// Attacks 1 and 2: registration floods

/**
 * `count` registrations paced evenly over `seconds` (each sent at its time whatever the answers
 * before it: an attacker does not wait), the n-th from `addressOf(n)`. Answers by status, and
 * what the refusals said.
 */
async function registrationFlood({ port, count, seconds, addressOf }) {
  const agent = agentOf(64);
  const byStatus = {};
  const refusals = {};
  const ms = [];
  const started = Date.now();
  const inFlight = new Set();
  for (let n = 0; n < count; n++) {
    const due = started + (n * seconds * 1000) / count;
    if (due > Date.now()) await sleep(due - Date.now());
    const sent = register(agent, port, addressOf(n), n).then((res) => {
      const key = res.status || `error ${res.error}`;
      byStatus[key] = (byStatus[key] ?? 0) + 1;
      ms.push(res.ms);
      if (res.status !== 201) {
        const reason = `${res.status || res.error}: ${reasonOf(res.text)}`;
        refusals[reason] = (refusals[reason] ?? 0) + 1;
      }
      inFlight.delete(sent);
    });
    inFlight.add(sent);
  }
  await Promise.all(inFlight);
  agent.destroy();
  return {
    sent: count,
    seconds: round((Date.now() - started) / 1000),
    byStatus,
    refusals,
    p50Ms: round(percentile(ms, 50)),
    p99Ms: round(percentile(ms, 99)),
  };
}

/** What a refusal said, its numbers (a wait in seconds) blanked so that refusals add up. */
function reasonOf(text = '') {
  let what = text.slice(0, 160);
  try {
    const body = JSON.parse(text);
    what =
      body.error_description ?? body.error?.message ?? body.message ?? JSON.stringify(body.error);
  } catch {
    // not JSON
  }
  return String(what).replace(/\d+/g, 'N').slice(0, 160);
}

/**
 * One registration flood on its own server and database: the person signs in alone for
 * `aloneSeconds`, then the flood, then `settleSeconds` of quiet. Figures before, during, after.
 */
async function registrationAttack({
  build,
  source,
  name,
  count,
  seconds,
  addressOf,
  label,
  heapSnapshots,
}) {
  const store = await freshDatabase(source, `open-internet-${name}`);
  const key = mintKey(build, store.db);
  const server = await startServer(
    build,
    store.db,
    { VMS_READ_TRUSTED_PROXIES: '127.0.0.1' },
    { heapSnapshots },
  );
  const rss = rssSampler(server.pid);
  try {
    const aloneSeconds = 10;
    const settleSeconds = 10;
    // Before anything is measured, and after everything (a snapshot pauses the server).
    const heapAtStart = heapSnapshots ? await heapSnapshot(server) : null;
    const start = await snapshot(server, store);
    const victim = person({ port: server.port, address: PERSON, key });
    await sleep(aloneSeconds * 1000);
    const before = await snapshot(server, store);
    log(`${label}: ${count} registrations over ${seconds} s; RSS ${before.rssMb} MB`);
    const floodFrom = Date.now();
    const flood = await registrationFlood({
      port: server.port,
      count,
      seconds,
      addressOf,
    });
    const floodTo = Date.now();
    const atEnd = await snapshot(server, store);
    await sleep(settleSeconds * 1000);
    await victim.stop();
    const after = await snapshot(server, store);
    const heapAtEnd = heapSnapshots ? await heapSnapshot(server) : null;
    const peak = rss.peak(floodFrom, floodTo);
    const result = {
      attack: label,
      serverEnv: { VMS_READ_TRUSTED_PROXIES: '127.0.0.1' },
      addresses: {
        attacker: count > 1000 ? '198.51.100.1 to 198.51.100.100' : ATTACKER,
        person: PERSON,
        note: 'given as X-Forwarded-For; a build without VMS_READ_TRUSTED_PROXIES sees all as 127.0.0.1',
      },
      flood,
      person: {
        pace: `a sign-in and ${REFRESHES_PER_CYCLE} refreshes every ${CYCLE_MS} ms`,
        requests: victim.state.requests,
        alone: {
          signIn: victim.signIns.summary(-Infinity, floodFrom),
          refresh: victim.refreshes.summary(-Infinity, floodFrom),
        },
        duringFlood: {
          signIn: victim.signIns.summary(floodFrom, floodTo),
          refresh: victim.refreshes.summary(floodFrom, floodTo),
        },
      },
      db: {
        beforeBytes: before.db.bytes,
        atFloodEndBytes: atEnd.db.bytes,
        afterBytes: after.db.bytes,
        growthMb: growthMb(before, after),
        growthMbWhileThePersonWasAlone: growthMb(start, before),
        growthMbAtFloodEnd: growthMb(before, atEnd),
        filesBefore: before.db.files,
        filesAfter: after.db.files,
        recordsAdded: recordsAdded(before, after),
        recordPayloadKbAdded: recordPayloadKbAdded(before, after),
        recordsAfter: after.records,
      },
      rssMb: {
        start: start.rssMb,
        before: before.rssMb,
        peak,
        atFloodEnd: atEnd.rssMb,
        after: after.rssMb,
        peakGrowth: round(peak - before.rssMb),
        afterGrowth: round(after.rssMb - before.rssMb),
        anonBefore: before.anonMb,
        anonAfter: after.anonMb,
      },
      heapMb: {
        before: {
          used: before.heapUsedMb,
          total: before.heapTotalMb,
          external: before.externalMb,
        },
        atFloodEnd: {
          used: atEnd.heapUsedMb,
          total: atEnd.heapTotalMb,
          external: atEnd.externalMb,
        },
        after: {
          used: after.heapUsedMb,
          total: after.heapTotalMb,
          external: after.externalMb,
        },
      },
      settleSeconds,
      ...(heapSnapshots
        ? {
            heapSnapshots: {
              note: 'live objects (after a full collection) before the person started and after the flood and the settle; the 12 kinds that grew most',
              ...heapGrowth(heapAtStart, heapAtEnd),
            },
          }
        : {}),
      serverLog: server.log,
    };
    const signInP99 = result.person.duringFlood.signIn.p99Ms;
    const refreshP99 = result.person.duringFlood.refresh.p99Ms;
    result.targets = {
      [`DB growth <= ${TARGETS.dbGrowthMb} MB`]: verdict(result.db.growthMb, TARGETS.dbGrowthMb),
      [`RSS growth (peak - before) <= ${TARGETS.rssGrowthMb} MB`]: verdict(
        result.rssMb.peakGrowth,
        TARGETS.rssGrowthMb,
      ),
      [`sign-in p99 <= ${TARGETS.victimP99Ms} ms`]: verdict(signInP99, TARGETS.victimP99Ms),
      [`refresh p99 <= ${TARGETS.victimP99Ms} ms`]: verdict(refreshP99, TARGETS.victimP99Ms),
    };
    return result;
  } finally {
    rss.stop();
    await server.stop();
    await store.remove();
  }
}

const verdict = (value, limit) => ({
  value,
  result: value === null || value === undefined ? 'n/a' : value <= limit ? 'PASS' : 'MISS',
});

// ---------------------------------------------------------------------------------------------
// Attack 3: during an import of a million rows

/** The first entry of each of the import workspace's recent timesheets (load-files' query). */
async function entryTemplatesOf(store) {
  const sql = (p1, p2) => `SELECT e.timesheet_id, e.assignment_id, e.worker_id, e.supplier_ref,
            e.work_date, e.pay_code, e.quantity_minutes, e.quantity_units
       FROM (SELECT id FROM timesheets WHERE workspace_id = ${p1}
              ORDER BY created_at DESC, id DESC LIMIT ${p2}) t
       JOIN time_entries e ON e.id = (SELECT id FROM time_entries WHERE timesheet_id = t.id
                                       ORDER BY created_at, id LIMIT 1)`;
  if (store.kind === 'sqlite') {
    const sqlite = new Database(store.db, { readonly: true });
    try {
      return sqlite.prepare(sql('?', '?')).all(IMPORT_WORKSPACE, 2000);
    } finally {
      sqlite.close();
    }
  }
  return pgQuery(store.db, sql('$1', '$2'), [IMPORT_WORKSPACE, 2000]);
}

/**
 * The folder of `rows` new time entries (bench/load-files.mjs' generator), made once per set of
 * templates and kept in bench/data for later runs.
 */
async function importFolder(store, rows) {
  const templates = await entryTemplatesOf(store);
  const digest = createHash('sha256').update(JSON.stringify(templates)).digest('hex').slice(0, 12);
  const dir = resolve(`bench/data/open-internet-import-${rows}-${digest}`);
  const file = join(dir, 'time_entries.csv');
  if (existsSync(`${dir}.done`)) return { dir, bytes: statSync(file).size };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`writing ${rows} new time entries to ${file}`);
  const bytes = await writeCsv(file, ENTRY_COLUMNS, newEntries(templates, rows, 'open_internet'));
  writeFileSync(`${dir}.done`, '');
  return { dir, bytes };
}

/** `vms-read import` of the build under /usr/bin/time, not awaited: its promise and start. */
function startImport(build, db, dir) {
  const startedAt = Date.now();
  const child = spawn(
    '/usr/bin/time',
    ['-v', process.execPath, build.cli, 'import', '--db', db, '--workspace', IMPORT_WORKSPACE, dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = once(child, 'exit').then(([code]) => {
    const endedAt = Date.now();
    let answer = null;
    try {
      answer = JSON.parse(stdout);
    } catch {
      // failed: stderr says why
    }
    return {
      code,
      startedAt,
      endedAt,
      seconds: round((endedAt - startedAt) / 1000, 2),
      peakRssMb: round(
        Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN) / 1024,
      ),
      counts: answer?.counts?.time_entries ?? null,
      ...(code === 0 ? {} : { stderr: stderr.slice(-1500) }),
    };
  });
  return { startedAt, done };
}

/** /healthz every 100 ms on a connection of its own; registrations every second. */
function probes(port) {
  const health = series();
  const registrations = series();
  let running = true;
  const healthAgent = agentOf(1);
  const registerAgent = agentOf(1);
  const healthLoop = (async () => {
    while (running) {
      const at = Date.now();
      const res = await request(healthAgent, port, {
        path: '/healthz',
        timeoutMs: 30_000,
      });
      health.add(at, res.ms, res.status === 200, String(res.status || res.error));
      await sleep(Math.max(0, 100 - (Date.now() - at)));
    }
  })();
  const registerLoop = (async () => {
    for (let n = 0; running; n++) {
      const at = Date.now();
      const res = await register(registerAgent, port, registrantAddress(n), n);
      const why = `${res.status || res.error}${res.status >= 500 ? ` ${reasonOf(res.text)}` : ''}`;
      registrations.add(at, res.ms, res.status === 201, why);
      await sleep(Math.max(0, 1000 - (Date.now() - at)));
    }
  })();
  return {
    health,
    registrations,
    async stop() {
      running = false;
      await Promise.all([healthLoop, registerLoop]);
      healthAgent.destroy();
      registerAgent.destroy();
    },
  };
}

async function importAttack({ build, source, rows }) {
  const store = await freshDatabase(source, 'open-internet-3-import');
  const folder = await importFolder(store, rows);
  const key = mintKey(build, store.db);
  const server = await startServer(build, store.db, {
    VMS_READ_TRUSTED_PROXIES: '127.0.0.1',
  });
  const rss = rssSampler(server.pid);
  try {
    const aloneSeconds = 10;
    const afterSeconds = 20;
    const victim = person({ port: server.port, address: PERSON, key });
    const probe = probes(server.port);
    await sleep(aloneSeconds * 1000);
    const before = await snapshot(server, store);
    log(
      `3: importing ${rows} time entries (${round(folder.bytes / MB)} MB of CSV) while measuring`,
    );
    const imported = startImport(build, store.db, folder.dir);
    const outcome = await imported.done;
    const atEnd = await snapshot(server, store);
    log(`3: import ${outcome.code === 0 ? 'done' : 'FAILED'} in ${outcome.seconds} s`);
    await sleep(afterSeconds * 1000);
    await Promise.all([victim.stop(), probe.stop()]);
    const from = outcome.startedAt;
    const to = outcome.endedAt;
    const figures = (pick) => ({
      alone: pick(-Infinity, from),
      duringImport: pick(from, to),
      afterImport: pick(to + 1, Infinity),
    });
    const measured = {
      registration: figures((a, b) => probe.registrations.summary(a, b)),
      signIn: figures((a, b) => victim.signIns.summary(a, b)),
      refresh: figures((a, b) => victim.refreshes.summary(a, b)),
      healthz: figures((a, b) => probe.health.summary(a, b)),
    };
    const all = [
      ...probe.registrations.samples,
      ...victim.signIns.samples,
      ...probe.health.samples,
    ];
    const result = {
      attack: '3: during an import of a million rows',
      import: {
        rows,
        workspace: IMPORT_WORKSPACE,
        csvMb: round(folder.bytes / MB),
        ...outcome,
        window: {
          startedAt: new Date(from).toISOString(),
          endedAt: new Date(to).toISOString(),
        },
      },
      measurementsSpan: {
        firstAt: new Date(Math.min(...all.map((s) => s.at))).toISOString(),
        lastAt: new Date(Math.max(...all.map((s) => s.at))).toISOString(),
        spannedImport: all.some((s) => s.at < from) && all.some((s) => s.at > to),
        secondsAloneBefore: aloneSeconds,
        secondsAfter: afterSeconds,
      },
      addresses: {
        person: PERSON,
        registrations: 'one of 203.0.113.100-149 each, in turn (20 registrations an hour each)',
      },
      measured,
      rssMb: {
        before: before.rssMb,
        peak: rss.peak(from, to),
        atImportEnd: atEnd.rssMb,
        // Of it, anonymous memory (heaps), not the database's pages mapped from its files.
        anonBefore: before.anonMb,
        anonPeak: rss.peak(from, to, 'anonMb'),
        peakAfterImport: rss.peak(to, Infinity),
        anonPeakAfterImport: rss.peak(to, Infinity, 'anonMb'),
      },
      // Every 2 s: seconds from the import's start, the server's RSS and its anonymous part (MB).
      rssTimelineColumns: ['secondsFromImportStart', 'rssMb', 'anonMb'],
      rssTimeline: rss.samples
        .filter((_, k) => k % 8 === 0)
        .map((x) => [round((x.at - from) / 1000), round(x.mb), round(x.anonMb)]),
      db: {
        growthMb: growthMb(before, atEnd),
        filesAtImportEnd: atEnd.db.files,
      },
      serverLog: server.log,
    };
    result.targets = Object.fromEntries(
      Object.entries(measured).map(([name, f]) => [
        `${name} p99 during the import <= ${TARGETS.victimP99Ms} ms`,
        verdict(f.duringImport.p99Ms, TARGETS.victimP99Ms),
      ]),
    );
    return result;
  } finally {
    rss.stop();
    await server.stop();
    await store.remove();
  }
}

// ---------------------------------------------------------------------------------------------
// Attack 4: an anonymous reading flood

/**
 * A token holder asking `path` one request at a time (20 ms apart) on a keep-alive connection of
 * its own, until stop(): its latencies and statuses.
 */
function tokenHolder(port, path, token) {
  const agent = agentOf(1);
  const seen = series();
  const byStatus = {};
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const res = await request(agent, port, {
        path,
        headers: { authorization: `Bearer ${token}` },
        discard: true,
      });
      const status = res.status || `error ${res.error}`;
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      seen.add(at, res.ms, res.status === 200, String(status));
      await sleep(20);
    }
  })();
  return {
    seen,
    byStatus,
    async stop() {
      running = false;
      await loop;
      agent.destroy();
    },
  };
}

async function anonymousFloodAttack({ build, source, seconds, connections }) {
  const store = await freshDatabase(source, 'open-internet-4-anonymous');
  const token = mintKey(build, store.db);
  const server = await startServer(build, store.db);
  const rss = rssSampler(server.pid);
  const path = '/openapi.json';
  const victimPath = '/api/v1/workers?limit=10';
  try {
    const aloneSeconds = 10;
    const victim = tokenHolder(server.port, victimPath, token);
    await sleep(aloneSeconds * 1000);
    const before = await snapshot(server, store);
    log(`4: ${connections} connections read ${path} without a token for ${seconds} s`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const byStatus = {};
    let bytes = 0;
    let running = true;
    const sockets = new WeakSet();
    const socketsOpened = { n: 0 };
    const onSocket = (socket) => {
      if (sockets.has(socket)) return;
      sockets.add(socket);
      socketsOpened.n++;
    };
    const floodFrom = Date.now();
    const attackers = Array.from({ length: connections }, async () => {
      while (running) {
        const res = await request(agent, server.port, {
          path,
          discard: true,
          onSocket,
        });
        const status = res.status || `error ${res.error}`;
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        bytes += res.bytes ?? 0;
        if (res.status === 0) await sleep(10);
      }
    });
    await sleep(seconds * 1000);
    running = false;
    await Promise.all(attackers);
    const floodTo = Date.now();
    agent.destroy();
    await sleep(1000);
    await victim.stop();
    const after = await snapshot(server, store);
    const answered = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return {
      attack: '4: anonymous reading flood',
      flood: {
        connections,
        path,
        seconds: round((floodTo - floodFrom) / 1000),
        requests: answered,
        perSecond: round(answered / ((floodTo - floodFrom) / 1000)),
        byStatus,
        connectionsOpened: socketsOpened.n,
        mbRead: round(bytes / MB),
      },
      victim: {
        path: victimPath,
        byStatus: victim.byStatus,
        alone: victim.seen.summary(-Infinity, floodFrom),
        duringFlood: victim.seen.summary(floodFrom, floodTo),
      },
      rssMb: {
        before: before.rssMb,
        peak: rss.peak(floodFrom, floodTo),
        after: after.rssMb,
      },
      serverLog: server.log,
    };
  } finally {
    rss.stop();
    await server.stop();
    await store.remove();
  }
}

// ---------------------------------------------------------------------------------------------
// The repertoire

/**
 * Runs `which` of the four attacks (numbers) against `build` (buildOf), each on a fresh copy of
 * `source`: `{ kind: 'sqlite', db }` or `{ kind: 'postgresql', admin, name }` (a database to copy
 * as a template, nothing connected to it). Returns the figures by attack.
 */
export async function runOpenInternetAttacks({
  build = buildOf('.'),
  source,
  which = [1, 2, 3, 4],
  floodSeconds = 60,
  importRows = 1_000_000,
  anonymousSeconds = 15,
  anonymousConnections = 200,
  heapSnapshots = false,
}) {
  const results = {
    build: {
      dir: build.dir,
      commit: build.commit,
      uncommittedSrcChanges: build.dirty,
    },
    store: source.kind,
    machineNote:
      'the load generator, the server (and in attack 3 the import) share the machine; on 2 cores shared with other work the figures are noisy',
  };
  const attempt = async (name, run) => {
    const loadBefore = loadavg().map((x) => round(x, 2));
    try {
      results[name] = await run();
      // The machine's load average (1, 5, 15 min) as the attack started and ended: how much
      // else ran beside it.
      results[name].loadAverage = {
        atStart: loadBefore,
        atEnd: loadavg().map((x) => round(x, 2)),
      };
    } catch (error) {
      log(`${name} failed: ${error.stack ?? error}`);
      results[name] = { error: String(error.stack ?? error) };
    }
  };
  if (which.includes(1))
    await attempt('registrationFloodOneAddress', () =>
      registrationAttack({
        build,
        source,
        name: '1-one-address',
        count: 1000,
        seconds: floodSeconds,
        addressOf: () => ATTACKER,
        label: '1: registration flood, one address',
        heapSnapshots,
      }),
    );
  if (which.includes(2))
    await attempt('registrationFloodHundredAddresses', () =>
      registrationAttack({
        build,
        source,
        name: '2-hundred-addresses',
        count: 5000,
        seconds: floodSeconds,
        addressOf: floodAddress,
        label: '2: registration flood, 100 addresses behind a trusted proxy',
        heapSnapshots,
      }),
    );
  if (which.includes(3))
    await attempt('duringImport', () => importAttack({ build, source, rows: importRows }));
  if (which.includes(4))
    await attempt('anonymousFlood', () =>
      anonymousFloodAttack({
        build,
        source,
        seconds: anonymousSeconds,
        connections: anonymousConnections,
      }),
    );
  return results;
}

/** The figures as lines (the soak prints them too). */
export function printOpenInternet(results, print = console.log) {
  const s = (x) => (x ? `${x.p50Ms}/${x.p99Ms}/${x.maxMs} ms (${x.n}, ${x.failed} failed)` : '-');
  const load = (r) => (r.loadAverage ? ` [load average ${r.loadAverage.atStart.join(' ')}]` : '');
  print(
    `open internet (issue 44), ${results.store}, build ${results.build.commit?.slice(0, 7)}${results.build.uncommittedSrcChanges ? ' + uncommitted src' : ''}: p50/p99/max (count, failed)`,
  );
  for (const name of ['registrationFloodOneAddress', 'registrationFloodHundredAddresses']) {
    const r = results[name];
    if (!r) continue;
    if (r.error) {
      print(`  ${name}: ERROR ${r.error.split('\n')[0]}`);
      continue;
    }
    print(`  ${r.attack}${load(r)}`);
    print(`    answers ${JSON.stringify(r.flood.byStatus)} in ${r.flood.seconds} s`);
    print(
      `    sign-in alone ${s(r.person.alone.signIn)}; during ${s(r.person.duringFlood.signIn)}`,
    );
    print(
      `    refresh alone ${s(r.person.alone.refresh)}; during ${s(r.person.duringFlood.refresh)}`,
    );
    print(
      `    DB +${r.db.growthMb} MB; RSS MB before/peak/after ${r.rssMb.before}/${r.rssMb.peak}/${r.rssMb.after}; records added ${JSON.stringify(r.db.recordsAdded)}`,
    );
    for (const [target, t] of Object.entries(r.targets))
      print(`    ${t.result} ${target}: ${t.value}`);
  }
  const i = results.duringImport;
  if (i?.error) print(`  duringImport: ERROR ${i.error.split('\n')[0]}`);
  else if (i) {
    print(
      `  ${i.attack}${load(i)}: import ${i.import.seconds} s (exit ${i.import.code}), spanned ${i.measurementsSpan.spannedImport}; server RSS MB before/peak ${i.rssMb.before}/${i.rssMb.peak}`,
    );
    for (const [name, f] of Object.entries(i.measured))
      print(
        `    ${name.padEnd(13)} alone ${s(f.alone)}; during ${s(f.duringImport)}; after ${s(f.afterImport)}`,
      );
    for (const [target, t] of Object.entries(i.targets))
      print(`    ${t.result} ${target}: ${t.value}`);
  }
  const a = results.anonymousFlood;
  if (a?.error) print(`  anonymousFlood: ERROR ${a.error.split('\n')[0]}`);
  else if (a) {
    print(
      `  ${a.attack}${load(a)}: ${a.flood.requests} answers ${JSON.stringify(a.flood.byStatus)} in ${a.flood.seconds} s, ${a.flood.connectionsOpened} connections opened`,
    );
    print(
      `    victim alone ${s(a.victim.alone)}; during ${s(a.victim.duringFlood)}; RSS MB ${a.rssMb.before}/${a.rssMb.peak}/${a.rssMb.after}`,
    );
  }
  for (const r of Object.values(results))
    if (r?.serverLog?.errors?.length)
      print(`  server errors: ${r.serverLog.errors.map((e) => e.slice(0, 400)).join('\n    ')}`);
}

// ---------------------------------------------------------------------------------------------
// Alone

/** The seed every run uses (bench/lib.mjs benchSeed's). */
const seedOf = (scale) => ({ scale, seed: '1', asOf: '2026-06-30' });

/** The build's seeded SQLite database of `scale`, in bench/data, seeded once per build commit. */
function seededSqlite(build, scale) {
  const db = resolve(
    `bench/data/open-internet-${scale}-${(build.commit ?? 'unknown').slice(0, 7)}.db`,
  );
  const marker = `${db}.seed.json`;
  const wanted = JSON.stringify(seedOf(scale));
  if (
    existsSync(db) &&
    existsSync(marker) &&
    JSON.stringify(JSON.parse(readFileSync(marker, 'utf8')).seed) === wanted
  )
    return db;
  log(`seeding ${db} with ${build.cli}`);
  const s = seedOf(scale);
  cliOf(build, [
    'seed',
    '--db',
    db,
    '--scale',
    s.scale,
    '--seed',
    s.seed,
    '--as-of',
    s.asOf,
    '--force',
  ]);
  writeFileSync(
    marker,
    JSON.stringify({
      seed: seedOf(scale),
      cli: build.cli,
      commit: build.commit,
    }),
  );
  return db;
}

async function main() {
  const { values } = parseArgs({
    options: {
      'server-dir': { type: 'string', default: '.' },
      pg: { type: 'boolean', default: false },
      scale: { type: 'string', default: 'small' },
      attacks: { type: 'string', default: '1,2,3,4' },
      'flood-seconds': { type: 'string', default: '60' },
      'import-rows': { type: 'string', default: '1000000' },
      'anonymous-seconds': { type: 'string', default: '15' },
      label: { type: 'string' },
      out: { type: 'string' },
      'heap-snapshots': { type: 'boolean', default: false },
    },
  });
  const build = buildOf(values['server-dir']);
  const which = values.attacks.split(',').map(Number);
  const label = values.label ?? (build.dir === resolve('.') ? 'this-build' : basename(build.dir));
  let cluster = null;
  let source;
  if (values.pg) {
    const { startCluster } = await import('../dist/test/support/pg-cluster.js');
    log('starting a throwaway PostgreSQL cluster');
    cluster = await startCluster();
    await pgQuery(cluster.url, 'CREATE DATABASE open_internet_seed');
    const url = cluster.url.replace(/\/postgres$/, '/open_internet_seed');
    const s = seedOf(values.scale);
    log(`seeding ${values.scale} into PostgreSQL with ${build.cli}`);
    cliOf(build, ['seed', '--db', url, '--scale', s.scale, '--seed', s.seed, '--as-of', s.asOf]);
    source = {
      kind: 'postgresql',
      admin: cluster.url,
      name: 'open_internet_seed',
    };
  } else source = { kind: 'sqlite', db: seededSqlite(build, values.scale) };
  const commandLine =
    `node bench/open-internet-attacks.mjs ${process.argv.slice(2).join(' ')}`.trim();
  try {
    const results = await runOpenInternetAttacks({
      build,
      source,
      which,
      floodSeconds: Number(values['flood-seconds']),
      importRows: Number(values['import-rows']),
      anonymousSeconds: Number(values['anonymous-seconds']),
      heapSnapshots: values['heap-snapshots'],
    });
    const output = {
      date: new Date().toISOString(),
      command: commandLine,
      label,
      machine: machine(),
      scale: values.scale,
      ...results,
    };
    const file =
      values.out ??
      `bench/results/open-internet-${label}-${output.date.replace(/[:.]/g, '-')}.json`;
    await writeFormatted(file, output);
    printOpenInternet(output);
    console.log(`\nwritten to ${file}`);
  } finally {
    cluster?.destroy();
  }
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

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
