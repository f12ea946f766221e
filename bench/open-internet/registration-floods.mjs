// Attacks 1 and 2: registration floods, from one address and from 100 behind a trusted proxy,
// while a person signs in beside them.
import { ATTACKER, log, PERSON, percentile, round, sleep, TARGETS, verdict } from './common.mjs';
import { mintKey } from './build.mjs';
import { freshDatabase } from './databases.mjs';
import { heapGrowth, heapSnapshot } from './heap-snapshots.mjs';
import { agentOf, reasonOf, register } from './http.mjs';
import { growthMb, recordPayloadKbAdded, recordsAdded, rssSampler, snapshot } from './measure.mjs';
import { CYCLE_MS, person, REFRESHES_PER_CYCLE } from './person.mjs';
import { startServer } from './server.mjs';

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

/**
 * One registration flood on its own server and database: the person signs in alone for
 * `aloneSeconds`, then the flood, then `settleSeconds` of quiet. Figures before, during, after.
 */
export async function registrationAttack({
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

/** The n-th registration's address when each comes from one of its own: 10.0.0.0/8 in order. */
export const ownAddress = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/**
 * Attack 5 (issue 56): does the server's memory grow with the clients registered? `count`
 * registrations from `addresses` addresses behind the trusted proxy (0: each from one of its own,
 * as an attacker holding many IPv6 /64s), 64 in flight, as fast as the server answers. Figures at
 * every fifth of them: the answers so far, the unused clients stored, RSS and the heap (from
 * /metrics); then again once the per-minute windows of those addresses have ended. With
 * `heapSnapshots`, the live heap (after a full collection) at the first fifth and at the end, and
 * what grew between: a snapshot itself raises the RSS by some 180 MB for good, so the RSS of such
 * a run is not the server's own.
 */
export async function registrationMemoryAttack({
  build,
  source,
  count = 35_000,
  addresses = 0,
  env = {},
  heapSnapshots = false,
  settleSeconds = 65,
}) {
  const store = await freshDatabase(source, 'open-internet-5-memory');
  const serverEnv = { VMS_READ_TRUSTED_PROXIES: '127.0.0.1', ...env };
  const server = await startServer(build, store.db, serverEnv, { heapSnapshots });
  const addressOf = addresses > 0 ? (n) => ownAddress(n % addresses) : ownAddress;
  const agent = agentOf(64);
  const byStatus = {};
  const checkpoints = [];
  const checkpoint = async (label, sent) => {
    const s = await snapshot(server, store);
    const figures = {
      label,
      sent,
      answers: { ...byStatus },
      clientsStored: s.records.Client?.n ?? 0,
      rssMb: s.rssMb,
      heapUsedMb: s.heapUsedMb,
      heapTotalMb: s.heapTotalMb,
    };
    checkpoints.push(figures);
    log(`5: ${JSON.stringify(figures)}`);
  };
  try {
    await checkpoint('before', 0);
    let liveAtFirstFifth = null;
    const started = Date.now();
    let next = 0;
    const fifth = Math.ceil(count / 5);
    for (let stop = fifth; next < count; stop = Math.min(count, stop + fifth)) {
      const sender = async () => {
        while (next < stop) {
          const n = next++;
          const res = await register(agent, server.port, addressOf(n), n);
          const key = res.status || `error ${res.error}`;
          byStatus[key] = (byStatus[key] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: 64 }, sender));
      await checkpoint(`after ${next}`, next);
      if (heapSnapshots && !liveAtFirstFifth) liveAtFirstFifth = await heapSnapshot(server);
    }
    const floodSeconds = round((Date.now() - started) / 1000);
    await sleep(settleSeconds * 1000);
    await checkpoint(`${settleSeconds} s later`, count);
    const liveAtEnd = heapSnapshots ? await heapSnapshot(server) : null;
    return {
      attack: `5: ${count} registrations from ${addresses || 'as many'} addresses behind a trusted proxy, memory along the way`,
      serverEnv,
      floodSeconds,
      answers: byStatus,
      checkpoints,
      ...(heapSnapshots
        ? {
            heapSnapshots: {
              note: 'live heap (after a full collection) at the first fifth and at the end; the RSS of this run includes what the snapshots took',
              ...heapGrowth(liveAtFirstFifth, liveAtEnd),
            },
          }
        : {}),
      serverLog: server.log,
    };
  } finally {
    agent.destroy();
    await server.stop();
    await store.remove();
  }
}
