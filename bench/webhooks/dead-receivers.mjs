// Dead receivers against a healthy one (DESIGN §4.16: "with 40 subscriptions at a receiver that
// never answers, a healthy one's delivery arrives within a second"): 40 subscriptions at a
// receiver that accepts connections and never answers (or spread over 10 such receivers), made
// first, then one at the verifying receiver; one change (a supplier renamed by `vms-read
// import`); the time from the import's exit to the healthy receiver having it. The server runs
// with the product's settings (32 deliveries at once, 4 per receiver, a 10 s time limit, a round
// every 200 ms). Each run is on a fresh copy of a database holding those 41 subscriptions and a
// server of its own, so every dead subscription is on its first try, the worst case (from their
// second they are retries, which take at most a quarter of the slots).
//
// Alone: `node bench/webhooks/dead-receivers.mjs [--server-dir DIR] [--scale small] [--runs 5]
// [--label L] [--out F]`: `--server-dir` runs another checkout's build (server and CLI), e.g. the
// build before the slots were shared out (/tmp/vms-before); its database is seeded with that
// build (bench/open-internet/databases.mjs). Writes
// bench/results/webhook-dead-receivers-<label>-<ISO date-time>.json. `node bench/webhooks.mjs`
// runs it too (`--dead-runs`), on this build.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  freePort,
  log as say,
  machine,
  mintTokenWith,
  round,
  spawnServer,
  waitFor,
  writeFormatted,
} from '../lib.mjs';
import { buildOf } from '../open-internet/build.mjs';
import { freshDatabase, seededSource } from '../open-internet/databases.mjs';
import { importRename, subscribe, summary, supplierOf, WORKSPACE } from './common.mjs';
import { startDeadReceiver, startReceiver, until } from './receivers.mjs';

const log = (message) => say(`[webhooks] ${message}`);

/** The design's bound on the healthy delivery, from the change. */
export const DEAD_RECEIVERS_TARGET_MS = 1000;
const DEAD_SUBSCRIPTIONS = 40;

/**
 * Both layouts (40 at one dead receiver, 40 over ten), `runs` runs each, with `build`'s server
 * and CLI, on copies of the SQLite database `db` (nothing else subscribed in it).
 */
export async function deadReceiverRuns({ build, db, runs }) {
  // The receivers are on loopback: the CLI's `webhook create` and the server allow it.
  process.env.VMS_READ_WEBHOOK_ALLOW_INSECURE = '1';
  const receiver = await startReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-webhooks-dead-'));
  try {
    const layout = (n) => oneLayout({ build, db, runs, receiver, dir, deadReceivers: n });
    return {
      build: { dir: build.dir, commit: build.commit, uncommittedSrcChanges: build.dirty },
      deadSubscriptions: DEAD_SUBSCRIPTIONS,
      from: "the import process's exit (its commit is a moment before)",
      settings: 'the server defaults: 32 at once, 4 per receiver, 10 s time limit, 200 ms rounds',
      targetMs: DEAD_RECEIVERS_TARGET_MS,
      oneReceiver: await layout(1),
      tenReceivers: await layout(10),
      unverifiedRequests: receiver.unverified(),
    };
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

let marker = 0;

/** One layout: the subscriptions made once in a template copy, then `runs` runs on copies of it. */
async function oneLayout({ build, db, runs, receiver, dir, deadReceivers }) {
  const template = await freshDatabase({ kind: 'sqlite', db }, `webhooks-dead-${deadReceivers}`);
  const dead = [];
  for (let i = 0; i < deadReceivers; i++) dead.push(await startDeadReceiver());
  try {
    const key = mintTokenWith(build.cli, template.db, WORKSPACE);
    log(
      `${DEAD_SUBSCRIPTIONS} subscriptions at ${deadReceivers} dead receiver(s), then a healthy one; ${runs} runs`,
    );
    for (let i = 0; i < DEAD_SUBSCRIPTIONS; i++)
      subscribe({
        db: template.db,
        key,
        url: `${dead[i % deadReceivers].url}/${i}`,
        cliPath: build.cli,
      });
    const path = `/healthy-among-dead-${deadReceivers}`;
    const healthy = subscribe({
      db: template.db,
      key,
      url: receiver.url(path),
      cliPath: build.cli,
    });
    receiver.secretFor(path, healthy.secret);
    const supplier = supplierOf(template.db);
    const ms = [];
    const held = [];
    let missed = 0;
    const loadAtStart = loadavg().map((x) => round(x, 2));
    for (let run = 0; run < runs; run++) {
      const copy = await freshDatabase({ kind: 'sqlite', db: template.db }, 'webhooks-dead-run');
      const port = await freePort();
      const server = spawnServer(copy.db, port, { build, env: { LOG_LEVEL: 'warn' } });
      const exited = once(server, 'exit');
      try {
        await waitFor(`http://127.0.0.1:${port}/healthz`, 120);
        // A few delivery rounds with nothing due before the change.
        await new Promise((r) => setTimeout(r, 1000));
        const name = `bench-hook-${900_000 + ++marker}`;
        const exitedAt = await importRename(copy.db, dir, supplier, name, build.cli);
        const arrived = await until(() => receiver.arrival(path, name), 30);
        if (arrived === null) missed++;
        else ms.push(arrived - exitedAt);
        held.push(dead.reduce((sum, d) => sum + d.held(), 0));
      } finally {
        server.kill('SIGTERM');
        const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
        await copy.remove();
      }
    }
    return {
      deadReceivers,
      runs,
      healthy: ms.length ? summary(ms) : null,
      healthyMs: ms.map((x) => round(x)),
      notWithin30s: missed,
      // The dead receivers' open connections as the healthy delivery arrived: dead tries under way.
      deadConnectionsHeld: held,
      // The machine's load average (1, 5, 15 min) as the runs started and ended.
      loadAverage: { atStart: loadAtStart, atEnd: loadavg().map((x) => round(x, 2)) },
    };
  } finally {
    for (const d of dead) await d.close();
    await template.remove();
  }
}

/** The lines of a result, as the other webhook scenarios print theirs. */
export function printDeadReceivers(result, print = console.log) {
  const mark = (ms) => `${ms} ms ${ms <= DEAD_RECEIVERS_TARGET_MS ? '✓' : '✗'}`;
  for (const r of [result.oneReceiver, result.tenReceivers]) {
    const where = r.deadReceivers === 1 ? 'one receiver' : `${r.deadReceivers} receivers`;
    print(
      `  ${result.deadSubscriptions} dead subscriptions at ${where}, then a healthy one (${r.runs} runs): ` +
        (r.healthy
          ? `${r.healthy.p50Ms} / ${r.healthy.p90Ms} / ${mark(r.healthy.maxMs)}`
          : 'never arrived') +
        `${r.notWithin30s ? `, ${r.notWithin30s} not within 30 s ✗` : ''}; dead connections held then ${Math.min(...r.deadConnectionsHeld)}-${Math.max(...r.deadConnectionsHeld)} [load average ${r.loadAverage.atStart.join(' ')}]`,
    );
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      'server-dir': { type: 'string', default: '.' },
      scale: { type: 'string', default: 'small' },
      runs: { type: 'string', default: '5' },
      label: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const build = buildOf(values['server-dir']);
  const label = values.label ?? (build.dir === resolve('.') ? 'this-build' : basename(build.dir));
  const { source } = await seededSource(build, values.scale, false);
  const result = await deadReceiverRuns({ build, db: source.db, runs: Number(values.runs) });
  const output = { date: new Date().toISOString(), machine: machine(), scale: values.scale };
  Object.assign(output, result);
  const file =
    values.out ??
    `bench/results/webhook-dead-receivers-${label}-${output.date.replace(/[:.]/g, '-')}.json`;
  await writeFormatted(file, output);
  console.log(
    `\nwebhooks, build ${build.commit?.slice(0, 7)}: from an import exiting to the healthy receiver having it (p50 / p90 / max)`,
  );
  printDeadReceivers(output);
  console.log(`  requests that did not verify: ${output.unverifiedRequests}`);
  console.log(`\nwritten to ${file}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
