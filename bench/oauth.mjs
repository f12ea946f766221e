// Issue 31: a request with an OAuth access token against the same request with an access key.
// `node bench/oauth.mjs [--quick] [--db file] [--seconds N] [--rounds N] [--alg RS256|ES256|…]
// [--out file.json]` (default bench/results/oauth-<ISO date-time>.json); bench/run.mjs runs it.
// An identity provider (the real oidc-provider, through the tests' helper in dist/) runs in this
// process on a free loopback port; the server trusts it through VMS_READ_OAUTH_ISSUERS. Three
// ways to call:
// - `access key`: a key minted with the CLI;
// - `OAuth, one token`: one token from the provider's token endpoint (client credentials), reused
//   by every request: its signature is checked once, then the verified-token and principal caches
//   answer (what a client holding its token until it expires costs);
// - `OAuth, token per request`: a pool of tokens signed with the provider's key (its own token's
//   claims, a fresh jti each), taken in turn. The pool is larger than the verified tokens kept and
//   the principals cached (10,000 each), so every request checks a signature;
// - `built-in, one token` (issue 32): a token of the server's own authorization server, got
//   through its sign-in and consent pages with the access key, reused by every request.
// "cached" and "uncached" mean what they mean in bench/run.mjs: the service's answer caches on
// (the default) or off (VMS_READ_CACHE=off). One server per meaning (on one port, so tokens name
// one audience), each way warmed up untimed, then the three ways interleaved in rounds (each
// round starting at the next way); a figure is the median of its rounds, a cost the median of
// the rounds' ratios (two starts of the same server differ by more than what is measured here).
// The provider counts the key set (/jwks) and discovery (/.well-known/) requests it answered, in
// the warm-up and in every timed run; the server's CPU time per request is read from /proc (the
// load generator shares the cores, so rps moves with its cost too). Target: OAuth costs at most
// 10% more than an access key (key rps ÷ OAuth rps ≤ 1.10, and OAuth ÷ key CPU per request), and
// no key set fetch while timed (the server refreshes its keys in the background ten minutes after
// fetching them: keep a run per server shorter).
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { decodeJwt } from 'jose';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { TestIdentityProvider, VMS_SCOPES } from '../dist/test/support/identity-provider.js';
import { personWith } from '../dist/test/support/oauth-browser.js';
import { signIn } from '../dist/test/support/oauth-flow.js';
import {
  benchDb,
  benchSeed,
  cpuMicros,
  ensureSeeded,
  freePort,
  log,
  mintToken,
  round,
  spawnServer,
  waitFor,
} from './lib.mjs';

const TARGET = 1.1;
const WAYS = ['accessKey', 'oauthOneToken', 'oauthTokenPerRequest', 'builtInOneToken'];
const MODES = { cached: 'on', uncached: 'off' };

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      scale: { type: 'string', default: 'medium' },
      db: { type: 'string' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string', default: '10' },
      pool: { type: 'string', default: '20000' },
      alg: { type: 'string', default: 'RS256' },
      out: { type: 'string' },
    },
  });
  return {
    db: values.db ?? benchDb(values.scale),
    scale: values.scale,
    seconds: Number(values.seconds ?? (values.quick ? 2 : 3)),
    rounds: Number(values.rounds ?? (values.quick ? 2 : 7)),
    warmupSeconds: values.quick ? 1 : 4,
    connections: Number(values.connections),
    pool: Number(values.pool),
    alg: values.alg,
    out: values.out,
  };
}

/**
 * One autocannon run; every way sets each request's path and header the same way. Besides rps
 * and latency, the server's CPU time per request (user and system, all its threads): what a
 * request costs the server, whatever the load generator beside it on the same cores costs.
 */
async function load(base, { path, header, seconds, connections, pid }) {
  let i = 0;
  const cpuFrom = cpuMicros(pid);
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        path: path(0),
        setupRequest: (req) => {
          const n = i++;
          req.path = path(n);
          req.headers.authorization = header(n);
          return req;
        },
      },
    ],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${path(0)}: ${bad} failed of ${result.requests.total} requests`);
  return {
    rps: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuUs: (cpuMicros(pid) - cpuFrom) / result.requests.total,
  };
}

/** What `run` cost the provider in key set and discovery requests, beside its result. */
async function counted(idp, run) {
  const [jwks, discovery] = [idp.jwksFetches, idp.discoveryFetches];
  const result = await run();
  return { result, jwks: idp.jwksFetches - jwks, discovery: idp.discoveryFetches - discovery };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * One server: each way warmed up untimed, then the ways in rounds, each round starting at the
 * next way (none always runs first, or right after the token pool has filled the caches).
 */
async function measureServer({ opts, port, env, idp, workloads, headers, mode, signedIn }) {
  const server = spawnServer(opts.db, port, { env });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/healthz`, 120);
    await signedIn(base);
    const run = (w, way, seconds) =>
      counted(idp, () =>
        load(base, { ...opts, pid: server.pid, path: w.path, header: headers[way], seconds }),
      );
    const warmup = { jwks: 0, discovery: 0 };
    for (const w of workloads)
      for (const way of WAYS) {
        const { jwks, discovery } = await run(w, way, opts.warmupSeconds);
        warmup.jwks += jwks;
        warmup.discovery += discovery;
      }
    const runs = new Map(
      workloads.map((w) => [w, Object.fromEntries(WAYS.map((way) => [way, []]))]),
    );
    for (let r = 0; r < opts.rounds; r++)
      for (const w of workloads)
        for (let k = 0; k < WAYS.length; k++) {
          const way = WAYS[(r + k) % WAYS.length];
          log(`oauth: ${mode}, round ${r + 1}/${opts.rounds}, ${w.name}, ${way}`);
          runs.get(w)[way].push(await run(w, way, opts.seconds));
        }
    const all = [...runs.values()].flatMap((byWay) => Object.values(byWay).flat());
    const sum = (key) => all.reduce((total, x) => total + x[key], 0);
    return {
      fetches: { warmup, timed: { jwks: sum('jwks'), discovery: sum('discovery') } },
      rows: workloads.map((w) => summary(w.name, mode, runs.get(w))),
    };
  } finally {
    server.kill('SIGTERM');
    if (server.exitCode === null && server.signalCode === null) await once(server, 'exit');
  }
}

/**
 * A workload's figures: each way's median rps (with the latency of that round) and CPU per
 * request; an OAuth way's cost is the median of its rounds' ratios to the access key's run of the
 * same round, seconds apart, so that the machine's drift between rounds cancels.
 */
function summary(name, mode, byWay) {
  const row = { name, mode };
  for (const way of WAYS) {
    const measured = byWay[way].map((x) => x.result);
    const rps = median(measured.map((x) => x.rps));
    const mid = measured.find((x) => x.rps === rps);
    row[way] = {
      rps: round(rps),
      p50Ms: mid.p50Ms,
      p99Ms: mid.p99Ms,
      cpuUsPerRequest: round(median(measured.map((x) => x.cpuUs))),
      roundsRps: measured.map((x) => round(x.rps)),
      fetches: byWay[way].map(({ jwks, discovery }) => ({ jwks, discovery })),
    };
  }
  const key = byWay.accessKey.map((x) => x.result);
  for (const way of WAYS.slice(1)) {
    const oauth = byWay[way].map((x) => x.result);
    row[way].cost = round(median(oauth.map((x, r) => key[r].rps / x.rps)), 2);
    row[way].cpuCost = round(median(oauth.map((x, r) => x.cpuUs / key[r].cpuUs)), 2);
  }
  return row;
}

/** The provider, its one token (client credentials) and a pool signed with its key. */
async function identityProvider(opts, resource) {
  const script = { clientId: 'bench-script', secret: 'bench-script-secret-0123456789abcdef' };
  const idp = await TestIdentityProvider.start({
    resources: () => [resource, `${resource}/mcp`],
    claims: () => ({ vms_workspace: 'ws_business', vms_role: 'staff' }),
    scripts: [script],
    alg: opts.alg,
    accessTokenTtl: 3600,
  });
  const oneToken = await idp.clientCredentials(script, { scope: VMS_SCOPES.join(' '), resource });
  const claims = decodeJwt(oneToken);
  log(`oauth: signing ${opts.pool} ${opts.alg} tokens`);
  const pool = [];
  for (let n = 0; n < opts.pool; n += 500) {
    const batch = Array.from({ length: Math.min(500, opts.pool - n) }, (_, k) =>
      idp.sign({ ...claims, jti: `bench-${n + k}` }),
    );
    pool.push(...(await Promise.all(batch)));
  }
  return { idp, oneToken, pool };
}

async function main() {
  const opts = options();
  ensureSeeded(opts.db, benchSeed(opts.scale));
  const db = new Database(opts.db, { readonly: true });
  const workers = db
    .prepare(
      `SELECT id FROM workers WHERE workspace_id = 'ws_business' ORDER BY random() LIMIT 500`,
    )
    .all()
    .map((r) => r.id);
  db.close();
  const key = mintToken(opts.db, 'ws_business');
  const accessKey = `Bearer ${key}`;
  // The built-in server's token, got from each server as it starts (its issuer is the server).
  let builtIn = '';
  const signedIn = async (at) => {
    const person = personWith({ key });
    builtIn = (await signIn(at, person, { scope: VMS_SCOPES.join(' ') })).tokens.access_token;
  };
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { idp, oneToken, pool } = await identityProvider(opts, base);
  const headers = {
    accessKey: () => accessKey,
    oauthOneToken: () => `Bearer ${oneToken}`,
    oauthTokenPerRequest: (n) => `Bearer ${pool[n % pool.length]}`,
    builtInOneToken: () => `Bearer ${builtIn}`,
  };
  const workloads = [
    { name: 'list_workers (page of 50)', path: () => '/api/v1/workers?limit=50' },
    {
      name: 'get_worker',
      path: (n) => `/api/v1/workers/item?id=${encodeURIComponent(workers[n % workers.length])}`,
    },
  ];
  const issuers = JSON.stringify([{ issuer: idp.issuer }]);
  const results = [];
  const providerFetches = {};
  try {
    for (const [mode, cache] of Object.entries(MODES)) {
      const env = { LOG_LEVEL: 'warn', VMS_READ_CACHE: cache, VMS_READ_OAUTH_ISSUERS: issuers };
      const measured = await measureServer({
        opts,
        port,
        env,
        idp,
        workloads,
        headers,
        mode,
        signedIn,
      });
      providerFetches[mode] = measured.fetches;
      results.push(...measured.rows);
    }
  } finally {
    await idp.close();
  }
  const output = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
    meaning:
      'cached / uncached: the answer caches on / off (VMS_READ_CACHE), as in bench/run.mjs. ' +
      'oauthOneToken: one token reused (its signature checked once); oauthTokenPerRequest: a ' +
      `pool of ${opts.pool} tokens taken in turn (a signature checked on every request); ` +
      "builtInOneToken: one token of the server's own authorization server, reused. " +
      'cost: access key rps / OAuth rps, cpuCost: OAuth / access key server CPU per request, ' +
      "each the median of the rounds' ratios (target <= 1.10 for both). rps, cpuUsPerRequest: " +
      'medians of the rounds.',
    alg: opts.alg,
    secondsPerRun: opts.seconds,
    rounds: opts.rounds,
    warmupSecondsPerWay: opts.warmupSeconds,
    connections: opts.connections,
    bytes: { oauthToken: oneToken.length, accessKey: accessKey.length - 'Bearer '.length },
    providerFetches,
    workloads: results,
  };
  // Alone it keeps its result with the others; bench/run.mjs names a file and keeps it in its own.
  const file = opts.out ?? `bench/results/oauth-${output.date.replace(/[:.]/g, '-')}.json`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  printOAuthTable(output);
  if (!opts.out) console.log(`\nwritten to ${file}`);
}

/** The table of a result (bench/run.mjs prints it too). */
export function printOAuthTable({ workloads, alg, bytes, providerFetches }) {
  const pad = (x, n) => String(x).padEnd(n);
  const padl = (x, n) => String(x).padStart(n);
  const cell = (m) =>
    `${padl(m.rps, 9)}${padl(m.p50Ms, 4)}${padl(m.p99Ms, 4)}${padl(m.cpuUsPerRequest, 7)}`;
  const mark = (x) => `${padl(x, 5)}${x <= TARGET ? '✓' : '✗'}`;
  const costs = (m) => `${mark(m.cost)}${mark(m.cpuCost)}`;
  console.log(
    `\nOAuth (${alg}, a ${bytes.oauthToken}-byte token) against an access key: rps, p50 and p99 (ms), ` +
      `the server's CPU µs a request; cost: key ÷ OAuth rps, then OAuth ÷ key CPU (target ≤ ${TARGET}); ` +
      'cached/uncached: answer caches on/off, as in the main table',
  );
  console.log(
    `${pad('workload', 27)}${pad('answers', 9)}| ${pad('access key', 24)}| ${pad('OAuth, one token', 36)}| ${pad('OAuth, token per request', 36)}| built-in server, one token`,
  );
  for (const w of workloads)
    console.log(
      `${pad(w.name, 27)}${pad(w.mode, 9)}|${cell(w.accessKey)} |${cell(w.oauthOneToken)}${costs(w.oauthOneToken)} |${cell(w.oauthTokenPerRequest)}${costs(w.oauthTokenPerRequest)} |${w.builtInOneToken ? `${cell(w.builtInOneToken)}${costs(w.builtInOneToken)}` : ''}`,
    );
  for (const [mode, { warmup, timed }] of Object.entries(providerFetches))
    console.log(
      `provider fetches, ${mode} server: warm-up ${warmup.jwks} key set + ${warmup.discovery} discovery; timed ${timed.jwks} + ${timed.discovery}`,
    );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
