// Uncached answers against the honest baseline alone (the same comparison `npm run bench` makes
// among its workloads): a server with its caches off (VMS_READ_CACHE=off, the access trail as
// configured) and bench/uncached-baseline-server.mjs on the same database, list_workers (50) and
// get_worker, each pair loaded in turn for `--rounds` rounds of `--seconds`, the median rps.
// Usage: npm run build && node bench/honest-baseline.mjs --db F [--rounds 3] [--seconds 5]
//        [--env NAME=VALUE …]
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { freePort, log, mintToken, round, spawnServer, timedLoad, waitFor } from './lib.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
if (!values.db) throw new Error('--db is required');
const env = Object.fromEntries(values.env.map((pair) => pair.split('=')));
const sqlite = new Database(values.db, { readonly: true });
const workers = sqlite
  .prepare(`SELECT id FROM workers WHERE workspace_id = 'ws_business' ORDER BY random() LIMIT 500`)
  .pluck()
  .all();
sqlite.close();
const auth = { authorization: `Bearer ${mintToken(values.db, 'ws_business')}` };
const [servicePort, honestPort] = [await freePort(), await freePort()];
const service = spawnServer(values.db, servicePort, {
  env: { VMS_READ_CACHE: 'off', LOG_LEVEL: 'warn', ...env },
});
const honest = spawn(
  process.execPath,
  ['bench/uncached-baseline-server.mjs', values.db, String(honestPort)],
  { stdio: 'ignore' },
);
try {
  const bases = [`http://127.0.0.1:${servicePort}`, `http://127.0.0.1:${honestPort}`];
  for (const base of bases) await waitFor(`${base}/healthz`);
  const workloads = {
    'list_workers (page of 50)': { path: '/api/v1/workers?limit=50', headers: auth },
    get_worker: {
      path: '/api/v1/workers/item',
      pick: (i) => `/api/v1/workers/item?id=${encodeURIComponent(workers[i % workers.length])}`,
      headers: auth,
    },
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const results = {};
  for (const [name, spec] of Object.entries(workloads)) {
    const rps = [[], []];
    for (let r = 0; r < Number(values.rounds); r++)
      for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const run = await timedLoad(bases[k], spec, {
          seconds: Number(values.seconds),
          connections: 10,
        });
        rps[k].push(run.rps);
      }
    const [s, h] = rps.map(median);
    results[name] = { uncachedRps: s, honestRps: h, ratio: round(s / h, 2), rounds: rps };
    log(`${name}: uncached ${s} rps, honest ${h} rps: ${round(s / h, 2)}×`);
  }
  console.log(JSON.stringify(results, null, 2));
} finally {
  service.kill('SIGTERM');
  honest.kill('SIGTERM');
}
