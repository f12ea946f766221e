// `npm run bench:shapes [-- --scale small --warmup 3000 --shapes 5000 --concurrency 4 --seed 1
// --env NAME=VALUE ...]`: what a server's memory does over many distinct report shapes, alone (no
// other traffic). Starts `vms-read serve` on the benchmark database of the scale, sends `--warmup`
// shapes, idles 5 s and reads its RSS, then sends `--shapes` new distinct shapes (none repeats, so
// every one is compiled, planned and run), idles 5 s and reads it again. Prints the RSS after each
// thousand shapes and the V8 heap (from /metrics) beside it, and writes
// bench/results/shape-memory-<ISO date-time>.json.
//
// Target (a goal, not a test: a MISS still exits 0): RSS growth ≤ 20 MB over the shapes after
// warm-up. `--env` passes settings to the server (VMS_READ_CACHE=off, VMS_READ_REPORT_ENGINE=row)
// to see what each part holds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  benchDb,
  benchSeed,
  ensureSeeded,
  freePort,
  log,
  mintToken,
  processMemory,
  round,
  spawnServer,
  waitFor,
} from './lib.mjs';
import { prng, shapeGenerator, valuePools, viewsOf } from './shapes.mjs';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' },
    warmup: { type: 'string', default: '3000' },
    shapes: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const WARMUP = Number(values.warmup);
const SHAPES = Number(values.shapes);
const CONCURRENCY = Number(values.concurrency);
const SEED = Number(values.seed);
const EXTRA_ENV = Object.fromEntries(
  values.env.map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--env ${pair}: NAME=VALUE`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
const IDLE_MS = 5_000;
const GROWTH_TARGET_MB = 20;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** RSS, of which anonymous (heaps) and files, rounded. */
function memoryOf(pid) {
  const { rssMb, anonMb, fileMb } = processMemory(pid);
  return { rssMb: round(rssMb), anonMb: round(anonMb), fileMb: round(fileMb) };
}

async function main() {
  const db = benchDb(values.scale);
  ensureSeeded(db, benchSeed(values.scale));
  const token = mintToken(db, 'ws_business');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawnServer(db, port, {
    env: { VMS_READ_METRICS: '1', LOG_LEVEL: 'warn', ...EXTRA_ENV },
  });
  const crashed = new Promise((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`server exited: ${code ?? signal}`))),
  );
  crashed.catch(() => {});
  try {
    await Promise.race([waitFor(`${base}/healthz`, 60), crashed]);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const statuses = {};
    const query = async (body) => {
      const res = await fetch(`${base}/api/v1/reports/query`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      const json = await res.json();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      return json;
    };
    const heapMb = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      const bytes = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
      return {
        heapUsed: round(bytes('nodejs_heap_size_used_bytes') / 2 ** 20),
        heapTotal: round(bytes('nodejs_heap_size_total_bytes') / 2 ** 20),
        external: round(bytes('nodejs_external_memory_bytes') / 2 ** 20),
      };
    };
    const catalog = await (await fetch(`${base}/api/v1/reports/catalog`, { headers })).json();
    const views = viewsOf(catalog.data);
    const { pools, spans } = await valuePools(
      views,
      async (q) => (await query({ query: q })).data?.rows ?? [],
    );
    const shapes = shapeGenerator(prng(SEED), views, pools, spans, 0);
    /** Sends `n` new shapes from `CONCURRENCY` clients; samples after each thousand. */
    const send = async (n, samples) => {
      let sent = 0;
      const client = async () => {
        while (sent < n) {
          const nth = ++sent;
          await query(shapes.next().body);
          if (nth % 1000 === 0 && samples)
            samples.push({ shapes: nth, ...memoryOf(child.pid), ...(await heapMb()) });
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, client));
    };
    const started = { ...memoryOf(child.pid), ...(await heapMb()) };
    log(`server up: RSS ${started.rssMb} MB; warming up with ${WARMUP} shapes`);
    await send(WARMUP);
    await sleep(IDLE_MS);
    const afterWarmup = { ...memoryOf(child.pid), ...(await heapMb()) };
    log(`after warm-up: ${JSON.stringify(afterWarmup)}; ${SHAPES} new shapes`);
    const samples = [];
    const t0 = performance.now();
    await send(SHAPES, samples);
    const seconds = (performance.now() - t0) / 1000;
    for (const s of samples) log(`  ${s.shapes} shapes: ${JSON.stringify(s)}`);
    await sleep(IDLE_MS);
    const end = { ...memoryOf(child.pid), ...(await heapMb()) };
    const growthMb = round(end.rssMb - afterWarmup.rssMb);
    const result = {
      date: new Date().toISOString(),
      command: `node bench/shape-memory.mjs ${process.argv.slice(2).join(' ')}`.trim(),
      scale: values.scale,
      env: EXTRA_ENV,
      warmupShapes: WARMUP,
      shapes: SHAPES,
      concurrency: CONCURRENCY,
      seconds: round(seconds),
      statuses,
      started,
      afterWarmup,
      samples,
      end,
      growthMb,
      target: {
        [`RSS growth <= ${GROWTH_TARGET_MB} MB`]: growthMb <= GROWTH_TARGET_MB ? 'PASS' : 'MISS',
      },
    };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/shape-memory-${result.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`end: ${JSON.stringify(end)}; growth ${growthMb} MB (${Object.values(result.target)[0]})`);
    log(`statuses: ${JSON.stringify(statuses)}; written to ${file}`);
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
