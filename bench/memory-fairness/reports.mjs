// Issue 56's findings (b) and (d), on reports: (b) the server's anonymous memory over 5,000
// distinct report shapes after a warm-up; (d) 64 reports at once against a 50 ms time limit,
// how long each took to be answered and how.
import { request } from '../open-internet/http.mjs';
import { prng, shapeGenerator, valuePools, viewsOf } from '../shapes.mjs';
import { anonymousOf, mallocOf } from './breakdown.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : null);
const percentile = (xs, p) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** POST /api/v1/reports/query with `token` on a connection of its own: status, code, time. */
async function report(server, token, body) {
  const answer = await request(null, server.port, {
    method: 'POST',
    path: '/api/v1/reports/query',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      // For answer-times.mjs in the server: when this was sent.
      'x-sent-at': String(performance.timeOrigin + performance.now()),
    },
    body: JSON.stringify(body),
  });
  let parsed = null;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    // no JSON (a dropped connection)
  }
  return { status: answer.status, code: parsed?.error?.code ?? null, ms: answer.ms, parsed };
}

/** New distinct report shapes for the workspace of `token`, from the catalog and the data. */
async function shapesFor(server, token, seed) {
  const headers = { authorization: `Bearer ${token}` };
  const catalog = await request(null, server.port, { path: '/api/v1/reports/catalog', headers });
  const views = viewsOf(JSON.parse(catalog.text).data);
  const { pools, spans } = await valuePools(views, async (query) => {
    // Under a short time limit a pool's query may be refused: it is asked again.
    for (let i = 0; i < 20; i++) {
      const answer = await report(server, token, { query });
      if (answer.status === 200) return answer.parsed.data?.rows ?? [];
    }
    return [];
  });
  return shapeGenerator(prng(seed), views, pools, spans, 0);
}

/**
 * (b): `warmup` shapes, 5 s idle, anonymous memory; then `batches` times `shapes` new ones from
 * `concurrency` clients, 5 s idle, anonymous memory again (a second batch shows whether the
 * first one's growth goes on or was a bound being reached). With `malloc`, malloc's own figures
 * at each point too (bench/memory-fairness/breakdown.mjs, gdb).
 */
export async function reportShapes(
  server,
  { token, warmup = 1000, shapes = 5000, batches = 1, concurrency = 4, seed = 1, malloc = false },
) {
  const generator = await shapesFor(server, token, seed);
  const statuses = {};
  const send = async (n) => {
    let sent = 0;
    const client = async () => {
      while (sent++ < n) {
        const { status } = await report(server, token, generator.next().body);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, client));
  };
  const memory = async () => {
    await sleep(5000);
    return { ...anonymousOf(server.pid), ...(malloc && { malloc: mallocOf(server.pid) }) };
  };
  await send(warmup);
  const afterWarmup = await memory();
  const afterBatches = [];
  const started = performance.now();
  for (let batch = 0; batch < batches; batch++) {
    await send(shapes);
    afterBatches.push(await memory());
  }
  const seconds = (performance.now() - started) / 1000;
  const end = afterBatches[0];
  return {
    warmup,
    shapes,
    concurrency,
    seconds: round(seconds),
    statuses,
    afterWarmup,
    afterBatches,
    anonGrowthMb: round(end.anonMb - afterWarmup.anonMb),
    laterBatchesGrowthMb: afterBatches
      .slice(1)
      .map((after, i) => round(after.anonMb - afterBatches[i].anonMb)),
  };
}

/** What answer-times.mjs recorded in the server since it was last asked (null without it). */
async function answerTimes(server) {
  const file = process.env.ANSWER_TIMES_FILE;
  if (!file) return null;
  const { existsSync, readFileSync, rmSync } = await import('node:fs');
  rmSync(file, { force: true });
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(50);
  await sleep(100);
  return JSON.parse(readFileSync(file, 'utf8'));
}

const spread = (xs) => ({
  p50Ms: round(percentile(xs, 50)),
  p90Ms: round(percentile(xs, 90)),
  maxMs: round(Math.max(...xs)),
});

/**
 * (d): `rounds` times, `concurrent` distinct reports sent at once, each on a connection of its
 * own; a round a second after the last answer of the one before. Each answer's time from its
 * send to its last byte, and whether it is a report (200) or which refusal.
 */
export async function reportDeadline(
  server,
  { token, limitMs, concurrent = 64, rounds = 10, seed = 7 },
) {
  const generator = await shapesFor(server, token, seed);
  await answerTimes(server);
  const answers = [];
  for (let r = 0; r < rounds; r++) {
    await sleep(1000);
    const bodies = Array.from({ length: concurrent }, () => generator.next().body);
    answers.push(...(await Promise.all(bodies.map((body) => report(server, token, body)))));
  }
  const byOutcome = {};
  for (const { status, code } of answers) {
    const outcome = code ? `${status} ${code}` : String(status);
    byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
  }
  const ms = answers.map((a) => a.ms);
  // In the server: from the turn of its event loop that read a request to its answer, and how
  // long the request had waited before that turn (sent to read; the client's clock is the same).
  const times = await answerTimes(server);
  return {
    limitMs,
    concurrent,
    rounds,
    byOutcome,
    ...spread(ms),
    answeredPastLimit: answers.filter((a) => a.status === 200 && a.ms > limitMs).length,
    refusedPast2xLimit: answers.filter((a) => a.status === 503 && a.ms > 2 * limitMs).length,
    ...(times && {
      server: {
        readToAnswer: spread(times.map((t) => t.answered - t.read)),
        sentToRead: spread(times.map((t) => t.read - t.sent)),
        answeredPastLimit: times.filter((t) => t.status === 200 && t.answered - t.read > limitMs)
          .length,
      },
    }),
  };
}
