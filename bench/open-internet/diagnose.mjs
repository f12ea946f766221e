// Where attack 3's time goes (`--diagnose`): every 500 ms, what the server's main thread (its
// event loop) and its other threads ran, how long the main thread was ready to run but waited for
// a core, what the import and the load generator ran and how busy the machine was; every second
// the server's event-loop delay (prom-client's, from /metrics); the server's own lines about its
// columnar copy; and each sign-in's steps with when they started. Read from /proc, so Linux only.
import { readdirSync, readFileSync } from 'node:fs';
import { round } from './common.mjs';
import { agentOf, request } from './http.mjs';

/** A thread's time on a core and waiting for one (ns), from its schedstat; null once gone. */
function schedstat(pid, tid = pid) {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
      .split(' ')
      .map(Number);
    return { onCpu, waiting };
  } catch {
    return null;
  }
}

/** Every thread of a process, added up (ns); null once gone. */
function processSchedstat(pid) {
  try {
    const total = { onCpu: 0, waiting: 0 };
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const s = schedstat(pid, tid);
      if (s) ((total.onCpu += s.onCpu), (total.waiting += s.waiting));
    }
    return total;
  } catch {
    return null;
  }
}

/** The machine's busy and total jiffies, all cores. */
function machineTimes() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
  const n = fields.map(Number);
  const idle = n[3] + n[4];
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** The process `vms-read import` runs in: the child of /usr/bin/time (`timePid`). */
function importPidOf(timePid) {
  try {
    return Number(readFileSync(`/proc/${timePid}/task/${timePid}/children`, 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

/** The largest value of a /metrics gauge, in ms. */
const gaugeMs = (text, name) =>
  round(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text)?.[1]) * 1000);

/**
 * Samples the server (`pid`, `port`) until `stop()`; `importStarted(timePid)` names the import's
 * process once it runs. `timeline(from)`: the figures, in seconds and ms from `from`.
 */
export function diagnose({ pid, port }) {
  const samples = [];
  const lags = [];
  let importPid = null;
  let last = null;
  const take = () => {
    const now = {
      at: Date.now(),
      main: schedstat(pid),
      server: processSchedstat(pid),
      import: importPid ? processSchedstat(importPid) : null,
      self: process.cpuUsage(),
      machine: machineTimes(),
    };
    if (last && now.main && last.main) {
      const ms = (a, b, key) => (a && b ? round((a[key] - b[key]) / 1e6) : null);
      samples.push([
        now.at,
        ms(now.main, last.main, 'onCpu'),
        ms(now.main, last.main, 'waiting'),
        round(ms(now.server, last.server, 'onCpu') - ms(now.main, last.main, 'onCpu')),
        ms(now.import, last.import, 'onCpu'),
        ms(now.import, last.import, 'waiting'),
        round((now.self.user + now.self.system - last.self.user - last.self.system) / 1000),
        round(
          (100 * (now.machine.busy - last.machine.busy)) / (now.machine.total - last.machine.total),
        ),
      ]);
    }
    last = now;
  };
  take();
  const sampler = setInterval(take, 500);
  const agent = agentOf(1);
  let running = true;
  const lagLoop = (async () => {
    while (running) {
      const at = Date.now();
      const res = await request(agent, port, { path: '/metrics', timeoutMs: 10_000 });
      if (res.status === 200)
        lags.push([
          at,
          gaugeMs(res.text, 'nodejs_eventloop_lag_max_seconds'),
          gaugeMs(res.text, 'nodejs_eventloop_lag_p99_seconds'),
          round(res.ms),
        ]);
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - at))));
    }
  })();
  return {
    importStarted(timePid) {
      const find = () => {
        importPid = importPidOf(timePid);
        if (!importPid && running) setTimeout(find, 20);
      };
      find();
    },
    async stop() {
      running = false;
      clearInterval(sampler);
      await lagLoop;
      agent.destroy();
    },
    timeline(from) {
      const s = (at) => round((at - from) / 1000);
      return {
        everyHalfSecondColumns: [
          'secondsFromImportStart',
          'serverMainThreadCpuMs',
          'serverMainThreadWaitingForACoreMs',
          'serverOtherThreadsCpuMs',
          'importCpuMs',
          'importWaitingForACoreMs',
          'loadGeneratorCpuMs',
          'machineBusyPercent',
        ],
        everyHalfSecond: samples.map(([at, ...rest]) => [s(at), ...rest]),
        // prom-client's monitorEventLoopDelay since the scrape before (about a second).
        eventLoopDelayColumns: ['secondsFromImportStart', 'maxMs', 'p99Ms', 'scrapeMs'],
        eventLoopDelay: lags.map(([at, ...rest]) => [s(at), ...rest]),
      };
    },
  };
}

/** Each sign-in: when it started (s from `from`), its time, and each step's start and time. */
export function signInSteps(samples, from) {
  return samples.map((x) => {
    let at = x.at;
    return {
      s: round((x.at - from) / 1000, 2),
      ms: round(x.ms),
      ...(x.ok ? {} : { why: x.why }),
      steps: (x.steps ?? [])
        .map(([step, ms]) => {
          const started = round((at - from) / 1000, 2);
          at += ms;
          return `${step} ${round(ms)}@${started}`;
        })
        .join(', '),
    };
  });
}
