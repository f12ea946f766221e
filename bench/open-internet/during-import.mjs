// Attack 3: a person signing in, registrations and /healthz while `vms-read import` loads
// 1,000,000 new time entries into the database the server reads.
import { resolve } from 'node:path';
import { log, MB, PERSON, registrantAddress, round, sleep, TARGETS, verdict } from './common.mjs';
import { IMPORT_WORKSPACE, importFolder, startImport } from './big-import.mjs';
import { mintKey } from './build.mjs';
import { freshDatabase } from './databases.mjs';
import { agentOf, reasonOf, register, request, series } from './http.mjs';
import { growthMb, rssSampler, snapshot } from './measure.mjs';
import { person } from './person.mjs';
import { startServer } from './server.mjs';
import { diagnose as watchServer, signInSteps } from './diagnose.mjs';

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

/**
 * Attack 3 on its own server and database. `diagnose` adds where the time went (diagnose.mjs; the
 * server then logs at info, for its columnar copy's lines); `cpuProfile` runs the server with
 * `--cpu-prof`, the profile written to bench/data/open-internet-cpu-prof when it stops.
 */
export async function importAttack({ build, source, rows, diagnose = false, cpuProfile = false }) {
  const store = await freshDatabase(source, 'open-internet-3-import');
  const folder = await importFolder(store, rows);
  const key = mintKey(build, store.db);
  const columnarLog = [];
  const profileDir = resolve('bench/data/open-internet-cpu-prof');
  const server = await startServer(
    build,
    store.db,
    { VMS_READ_TRUSTED_PROXIES: '127.0.0.1', ...(diagnose ? { LOG_LEVEL: 'info' } : {}) },
    {
      nodeFlags: cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      onLine: (line, entry) => {
        if (line.includes('columnar')) columnarLog.push([entry?.time ?? Date.now(), entry?.msg]);
      },
    },
  );
  const watch = diagnose ? watchServer(server) : null;
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
    watch?.importStarted(imported.pid);
    const outcome = await imported.done;
    const atEnd = await snapshot(server, store);
    log(`3: import ${outcome.code === 0 ? 'done' : 'FAILED'} in ${outcome.seconds} s`);
    await sleep(afterSeconds * 1000);
    await Promise.all([victim.stop(), probe.stop(), watch?.stop()]);
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
      ...(watch
        ? {
            diagnosis: {
              ...watch.timeline(from),
              columnarLog: columnarLog.map(([at, msg]) => [round((at - from) / 1000, 2), msg]),
              signIns: signInSteps(victim.signIns.samples, from),
            },
          }
        : {}),
      ...(cpuProfile ? { cpuProfileDir: profileDir } : {}),
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
