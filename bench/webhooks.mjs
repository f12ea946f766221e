// Webhook delivery (issue 34): how soon a change reaches a receiver after its import exits, with
// `vms-read serve` running on a copy of the seeded database (medium by default).
// `node bench/webhooks.mjs [--scale medium] [--db F] [--runs 20] [--subscribers 100] [--out F]`
//
// Each run imports one supplier row (`vms-read import`, a new name) and times from the import's
// exit to the receiver's receipt of the delivery naming it. The receiver runs in this process,
// verifies every request with the `standardwebhooks` package and answers 204.
// - healthy: one subscription (`--type supplier`, a staff key). Beside it, a baseline measured in
//   the same runs: right after the import exits, the same page read with `list_changes`
//   (type=supplier, from the last cursor) and the same body signed with the same library and
//   POSTed to the same receiver, by hand: what pushing costs without the delivery loop (no poll
//   interval, no state written to the store).
// - 100 subscriptions, one of them at a receiver that accepts connections and never answers:
//   for each import, when the last of the 99 others got it.
// Targets: p50 ≤ 1 s (healthy); the 99 others each ≤ 1 s.
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { runImport, WORKSPACE, writeCsv } from './load-files.mjs';
import { copyDatabase, removeCopy } from './load-server.mjs';
import {
  benchDb,
  benchSeed,
  cli,
  ensureSeeded,
  freePort,
  log as say,
  machine,
  mintToken,
  round,
  spawnServer,
  waitFor,
} from './lib.mjs';

const log = (message) => say(`[webhooks] ${message}`);

export const TARGETS = { healthyP50Ms: 1000, othersMaxMs: 1000 };

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const summary = (ms) => ({
  p50Ms: round(percentile(ms, 50)),
  p90Ms: round(percentile(ms, 90)),
  maxMs: round(Math.max(...ms)),
});

/** The receiver: verifies each request under its path's secret and notes when a run's marker came. */
async function startReceiver() {
  const secrets = new Map();
  const arrivals = new Map(); // `${path} ${marker}` → performance.now()
  let unverified = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(secrets.get(request.url)).verify(raw, request.headers);
      } catch {
        unverified++;
      }
      for (const [, marker] of raw.matchAll(/(bench-hook-\d+)/g)) {
        const key = `${request.url} ${marker}`;
        if (!arrivals.has(key)) arrivals.set(key, at);
      }
      response.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    secretFor: (path, secret) => secrets.set(path, secret),
    arrival: (path, marker) => arrivals.get(`${path} ${marker}`),
    unverified: () => unverified,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A receiver that accepts connections and never answers. */
async function startDeadReceiver() {
  const sockets = new Set();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/dead`,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves with when `check` first gives a time, polling every 2 ms, or null after 15 s. */
async function until(check) {
  const end = performance.now() + 15_000;
  while (performance.now() < end) {
    const at = check();
    if (at !== undefined) return at;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return null;
}

async function main() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: 'medium' },
      db: { type: 'string' },
      runs: { type: 'string', default: '20' },
      subscribers: { type: 'string', default: '100' },
      out: { type: 'string' },
    },
  });
  const RUNS = Number(values.runs);
  const SUBSCRIBERS = Number(values.subscribers);
  const db = values.db ?? benchDb(values.scale);
  ensureSeeded(db, benchSeed(values.scale));
  const { copy } = copyDatabase(db);
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-webhooks-bench-'));
  const receiver = await startReceiver();
  const dead = await startDeadReceiver();
  // The receivers are on loopback: the CLI's `webhook create` and the server allow it.
  const env = { VMS_READ_WEBHOOK_ALLOW_INSECURE: '1' };
  Object.assign(process.env, env);
  let server;
  try {
    const sqlite = new Database(copy, { readonly: true });
    const supplier = sqlite
      .prepare('SELECT id, code FROM suppliers WHERE workspace_id = ? ORDER BY id LIMIT 1')
      .get(WORKSPACE);
    sqlite.close();
    const key = mintToken(copy, WORKSPACE);
    const subscribe = (path, url = receiver.url(path)) => {
      const made = JSON.parse(
        cli([
          'webhook',
          'create',
          '--db',
          copy,
          '--token',
          key,
          '--url',
          url,
          '--type',
          'supplier',
        ]),
      );
      receiver.secretFor(path, made.secret);
      return made;
    };

    const port = await freePort();
    server = spawnServer(copy, port, { env: { ...env, LOG_LEVEL: 'warn' } });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/healthz`, 120);
    const auth = { authorization: `Bearer ${key}` };
    // The baseline's place in the supplier feed: its end now.
    let cursor;
    for (;;) {
      const page = (
        await (
          await fetch(
            `${base}/api/v1/changes?type=supplier${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            { headers: auth },
          )
        ).json()
      ).data;
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    const baselineSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    receiver.secretFor('/baseline', baselineSecret);
    const signer = new Webhook(baselineSecret);

    let run = 0;
    /** Imports the supplier under a new name; returns the marker and when the import exited. */
    async function importChange() {
      const marker = `bench-hook-${++run}`;
      const at = join(dir, marker);
      mkdirSync(at);
      await writeCsv(
        join(at, 'suppliers.csv'),
        ['id', 'code', 'name', 'updated_at'],
        [[supplier.id, supplier.code, `Supplier ${marker}`, new Date().toISOString()]],
      );
      const { exitedAt } = await runImport(copy, at);
      return { marker, exitedAt };
    }

    log(`healthy: ${RUNS} imports, one subscription, and the hand-made push beside it`);
    const healthy = subscribe('/healthy');
    const healthyMs = [];
    const baselineMs = [];
    for (let i = 0; i < RUNS; i++) {
      const { marker, exitedAt } = await importChange();
      // The baseline: the page, then the same body signed and posted, right after the exit.
      const page = (
        await (
          await fetch(`${base}/api/v1/changes?type=supplier&cursor=${encodeURIComponent(cursor)}`, {
            headers: auth,
          })
        ).json()
      ).data;
      cursor = page.nextCursor;
      const body = JSON.stringify({
        type: 'vms.changes',
        subscription: healthy.id,
        dataVersion: page.items.at(-1)?.version,
        items: page.items,
        nextCursor: page.nextCursor,
      });
      const id = `msg_baseline_${marker}`;
      const now = new Date();
      await fetch(receiver.url('/baseline'), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(id, now, body),
        },
        body,
      });
      const pushed = await until(() => receiver.arrival('/baseline', marker));
      const delivered = await until(() => receiver.arrival('/healthy', marker));
      if (pushed === null || delivered === null) throw new Error(`run ${marker} never arrived`);
      baselineMs.push(pushed - exitedAt);
      healthyMs.push(delivered - exitedAt);
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
    cli(['webhook', 'disable', '--db', copy, '--id', healthy.id]);

    log(
      `${SUBSCRIBERS} subscriptions, one at a receiver that never answers: ${Math.ceil(RUNS / 2)} imports`,
    );
    const others = [];
    subscribe('/dead', dead.url);
    for (let i = 1; i < SUBSCRIBERS; i++) {
      others.push(`/s${i}`);
      subscribe(`/s${i}`);
    }
    const lastOfOthersMs = [];
    const allOthersMs = [];
    for (let i = 0; i < Math.ceil(RUNS / 2); i++) {
      const { marker, exitedAt } = await importChange();
      const times = [];
      for (const path of others) {
        const at = await until(() => receiver.arrival(path, marker));
        if (at === null) throw new Error(`${path} never got ${marker}`);
        times.push(at - exitedAt);
      }
      allOthersMs.push(...times);
      lastOfOthersMs.push(Math.max(...times));
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }

    const output = {
      date: new Date().toISOString(),
      machine: machine(),
      scale: values.scale,
      runs: RUNS,
      targets: TARGETS,
      healthy: {
        delivery: summary(healthyMs),
        baseline: summary(baselineMs),
        ratio: round(percentile(healthyMs, 50) / percentile(baselineMs, 50), 2),
      },
      withOneDead: {
        subscriptions: SUBSCRIBERS,
        imports: lastOfOthersMs.length,
        lastOfOthers: summary(lastOfOthersMs),
        eachOther: summary(allOthersMs),
      },
      unverifiedRequests: receiver.unverified(),
    };
    const file = values.out ?? `bench/results/webhooks-${output.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
    printWebhooksTable(output);
    if (!values.out) console.log(`\nwritten to ${file}`);
  } finally {
    server?.kill('SIGTERM');
    await receiver.close();
    await dead.close();
    rmSync(dir, { recursive: true, force: true });
    removeCopy(copy);
  }
}

/** The table of a result (bench/run.mjs prints it too). */
export function printWebhooksTable({ healthy, withOneDead, unverifiedRequests }) {
  const mark = (ms, target) => `${ms} ms ${ms <= target ? '✓' : '✗'}`;
  console.log('\nwebhooks: from an import exiting to the receiver having it (p50 / p90 / max)');
  console.log(
    `  one healthy subscription: ${mark(healthy.delivery.p50Ms, TARGETS.healthyP50Ms)} / ${healthy.delivery.p90Ms} / ${healthy.delivery.maxMs}` +
      `; by hand (read the page, sign, post): ${healthy.baseline.p50Ms} / ${healthy.baseline.p90Ms} / ${healthy.baseline.maxMs}; ratio of p50s ${healthy.ratio}`,
  );
  console.log(
    `  ${withOneDead.subscriptions} subscriptions, one dead: the last of the other ${withOneDead.subscriptions - 1} ${withOneDead.lastOfOthers.p50Ms} / ${withOneDead.lastOfOthers.p90Ms} / ${mark(withOneDead.lastOfOthers.maxMs, TARGETS.othersMaxMs)}` +
      `; each other ${withOneDead.eachOther.p50Ms} / ${withOneDead.eachOther.p90Ms} / ${withOneDead.eachOther.maxMs}`,
  );
  console.log(`  requests that did not verify: ${unverifiedRequests}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
