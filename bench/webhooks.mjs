// Webhook delivery (issue 34): how soon a change reaches a receiver after its import exits, with
// `vms-read serve` running on a copy of the seeded database (medium by default).
// `node bench/webhooks.mjs [--scale medium] [--db F] [--runs 20] [--subscribers 100]
//   [--dead-runs 5] [--out F]`
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
// - 40 subscriptions at receivers that never answer (one, or ten), then a healthy one, each run
//   on a fresh copy and server (bench/webhooks/dead-receivers.mjs; `--dead-runs 5`, 0: skip).
// Targets: p50 ≤ 1 s (healthy); the 99 others each ≤ 1 s; the healthy one among 40 dead ≤ 1 s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
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
  writeFormatted,
} from './lib.mjs';
import { buildOf } from './open-internet/build.mjs';
import {
  importRename,
  percentile,
  subscribe as subscribeWith,
  summary,
  supplierOf,
  WORKSPACE,
} from './webhooks/common.mjs';
import { deadReceiverRuns, printDeadReceivers } from './webhooks/dead-receivers.mjs';
import { startDeadReceiver, startReceiver, until } from './webhooks/receivers.mjs';

const log = (message) => say(`[webhooks] ${message}`);

export const TARGETS = { healthyP50Ms: 1000, othersMaxMs: 1000 };

async function main() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: 'medium' },
      db: { type: 'string' },
      runs: { type: 'string', default: '20' },
      subscribers: { type: 'string', default: '100' },
      'dead-runs': { type: 'string', default: '5' },
      out: { type: 'string' },
    },
  });
  const RUNS = Number(values.runs);
  const SUBSCRIBERS = Number(values.subscribers);
  const db = values.db ?? benchDb(values.scale);
  // A database given is read as it is (seeding it at --scale would overwrite it).
  if (!values.db) ensureSeeded(db, benchSeed(values.scale));
  const { copy } = copyDatabase(db);
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-webhooks-bench-'));
  const receiver = await startReceiver();
  const dead = await startDeadReceiver();
  // The receivers are on loopback: the CLI's `webhook create` and the server allow it.
  const env = { VMS_READ_WEBHOOK_ALLOW_INSECURE: '1' };
  Object.assign(process.env, env);
  let server;
  try {
    const supplier = supplierOf(copy);
    const key = mintToken(copy, WORKSPACE);
    const subscribe = (path, url = receiver.url(path)) => {
      const made = subscribeWith({ db: copy, key, url });
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
      return { marker, exitedAt: await importRename(copy, dir, supplier, marker) };
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
    server.kill('SIGTERM');
    server = null;
    if (Number(values['dead-runs']) > 0)
      // On copies of the seeded database (nothing subscribed in it), each with a server of its own.
      output.deadReceivers = await deadReceiverRuns({
        build: buildOf('.'),
        db,
        runs: Number(values['dead-runs']),
      });
    const file = values.out ?? `bench/results/webhooks-${output.date.replace(/[:.]/g, '-')}.json`;
    await writeFormatted(file, output);
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
export function printWebhooksTable({ healthy, withOneDead, deadReceivers, unverifiedRequests }) {
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
  if (deadReceivers) printDeadReceivers(deadReceivers);
  console.log(
    `  requests that did not verify: ${unverifiedRequests + (deadReceivers?.unverifiedRequests ?? 0)}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
