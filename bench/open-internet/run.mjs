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
//    without a token as fast as they can, while a token holder lists workers one at a time;
// 5. (issue 56, not run unless asked) does memory grow with the clients registered: 35,000
//    registrations, each from an address of its own behind the trusted proxy (or from
//    `--registration-addresses N`), with RSS, heap and the clients stored at every fifth and once
//    the per-minute windows ended (registration-floods.mjs).
// 6. the access trail flooded (issue 56, trail-flood.mjs): anonymous requests and a key past its
//    quota, from one address and from 100 behind the proxy; what the trail grew by a minute.
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
// Alone: `npm run build && node bench/open-internet/run.mjs [--server-dir DIR] [--pg]
//   [--scale small] [--attacks 1,2,3,4,6] [--trail-seconds 60] [--flood-seconds 60]
//   [--import-rows 1000000] [--label before] [--out FILE] [--heap-snapshots] [--diagnose]
//   [--cpu-prof] [--registrations 35000] [--registration-addresses 0]`; `--server-dir`
// runs the server (and the CLI: seed, token, import) of another checkout's build, e.g. the build
// before this work; `--heap-snapshots` adds, in attacks 1 and 2, what grew in the server's live
// heap; `--diagnose` adds, in attack 3, where the time went (diagnose.mjs), and `--cpu-prof` a
// CPU profile of its server. Writes
// bench/results/open-internet-<label>-<ISO date-time>.json. `npm run soak -- --attacks only`
// (or `on`) runs them too, after its own attacks, on its database (`--pg`: its PostgreSQL).
//
// The parts, beside this file: build.mjs and server.mjs (the build under test and its server),
// databases.mjs (the seeded database and a fresh copy per attack), http.mjs and person.mjs (the
// HTTP client, and the person who signs in through the OAuth pages), measure.mjs and
// heap-snapshots.mjs (database size, records, memory), one file per attack
// (registration-floods.mjs: 1 and 2; during-import.mjs with big-import.mjs: 3;
// anonymous-flood.mjs: 4), diagnose.mjs (attack 3's timeline), print.mjs (the figures as lines),
// common.mjs (targets, addresses).
import { loadavg } from 'node:os';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, writeFormatted } from '../lib.mjs';
import { anonymousFloodAttack } from './anonymous-flood.mjs';
import { buildOf } from './build.mjs';
import { ATTACKER, floodAddress, log, round } from './common.mjs';
import { seededSource } from './databases.mjs';
import { importAttack } from './during-import.mjs';
import { printOpenInternet as printAttacks } from './print.mjs';
import { registrationAttack, registrationMemoryAttack } from './registration-floods.mjs';
import { printTrailFlood, trailFloodAttack } from './trail-flood.mjs';

/** The attacks this file runs, by number. */
export const OPEN_INTERNET_ATTACKS = [1, 2, 3, 4, 5, 6];

/** The figures as lines, attack 6's among them. */
function printOpenInternet(results, print = console.log) {
  printAttacks(results, print);
  if (results.trailFlood) printTrailFlood(results.trailFlood, print);
}

export { printOpenInternet };

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
  trailSeconds = 60,
  importRows = 1_000_000,
  anonymousSeconds = 15,
  anonymousConnections = 200,
  heapSnapshots = false,
  diagnose = false,
  cpuProfile = false,
  registrations = 35_000,
  registrationAddresses = 0,
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
    await attempt('duringImport', () =>
      importAttack({ build, source, rows: importRows, diagnose, cpuProfile }),
    );
  if (which.includes(4))
    await attempt('anonymousFlood', () =>
      anonymousFloodAttack({
        build,
        source,
        seconds: anonymousSeconds,
        connections: anonymousConnections,
      }),
    );
  if (which.includes(5))
    await attempt('registrationMemory', () =>
      registrationMemoryAttack({
        build,
        source,
        count: registrations,
        addresses: registrationAddresses,
        heapSnapshots,
      }),
    );
  if (which.includes(6))
    await attempt('trailFlood', () => trailFloodAttack({ build, source, seconds: trailSeconds }));
  return results;
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
      'trail-seconds': { type: 'string', default: '60' },
      label: { type: 'string' },
      out: { type: 'string' },
      'heap-snapshots': { type: 'boolean', default: false },
      diagnose: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      registrations: { type: 'string', default: '35000' },
      'registration-addresses': { type: 'string', default: '0' },
    },
  });
  const build = buildOf(values['server-dir']);
  const which = values.attacks.split(',').map(Number);
  const label = values.label ?? (build.dir === resolve('.') ? 'this-build' : basename(build.dir));
  const { source, cluster } = await seededSource(build, values.scale, values.pg);
  const commandLine = `node bench/open-internet/run.mjs ${process.argv.slice(2).join(' ')}`.trim();
  try {
    const results = await runOpenInternetAttacks({
      build,
      source,
      which,
      floodSeconds: Number(values['flood-seconds']),
      importRows: Number(values['import-rows']),
      anonymousSeconds: Number(values['anonymous-seconds']),
      trailSeconds: Number(values['trail-seconds']),
      heapSnapshots: values['heap-snapshots'],
      diagnose: values.diagnose,
      cpuProfile: values['cpu-prof'],
      registrations: Number(values.registrations),
      registrationAddresses: Number(values['registration-addresses']),
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

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
