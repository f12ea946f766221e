// Where a server's anonymous memory is (issue 56): the system's view (/proc: RssAnon; the main
// malloc heap, `[heap]`, apart from the other anonymous maps, which hold V8's pages, the other
// malloc arenas, DuckDB's jemalloc), V8's own (process.memoryUsage() through the inspector), and
// malloc's (mallinfo2() through gdb). Then what a full collection gives back (V8's garbage and the
// pages its pool keeps: HeapProfiler.collectGarbage is the low-memory collection) and what
// malloc_trim(0) gives back (free memory malloc keeps in its arenas): what is left is held.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MB = 2 ** 20;
const round = (x) => Math.round(x * 10) / 10;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** RssAnon, and of the anonymous memory the main malloc heap and the rest, in MB. */
export function anonymousOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const anonMb = Number(/RssAnon:\s+(\d+)/.exec(status)[1]) / 1024;
  let heapKb = 0;
  let inHeap = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) inHeap = head[1] === '[heap]';
    else if (inHeap && line.startsWith('Anonymous:')) heapKb += Number(line.split(/\s+/)[1]);
  }
  const mallocHeapMb = heapKb / 1024;
  return { anonMb: round(anonMb), mallocHeapMb: round(mallocHeapMb) };
}

/** malloc's own figures (all arenas), through gdb; null where gdb cannot attach. */
export function mallocOf(pid, trim = false) {
  try {
    const out = execFileSync(
      'gdb',
      [
        '-p',
        String(pid),
        '-batch',
        ...(trim ? ['-ex', 'call (int)malloc_trim(0)'] : []),
        '-ex',
        'p mallinfo2()',
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 },
    );
    const field = (name) => Number(new RegExp(`${name} = (\\d+)`).exec(out)?.[1] ?? NaN) / MB;
    return {
      arenasMb: round(field('arena')),
      inUseMb: round(field('uordblks')),
      freeMb: round(field('fordblks')),
      mmappedMb: round(field('hblkhd')),
    };
  } catch {
    return null;
  }
}

/** A DevTools protocol session with a server started with `--inspect=127.0.0.1:PORT`. */
export async function inspectorOf(port) {
  let targets;
  for (let i = 0; i < 100 && !targets; i++) {
    try {
      targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    } catch {
      await sleep(100);
    }
  }
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let id = 0;
  const waiting = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const call = waiting.get(message.id);
    if (!call) return;
    waiting.delete(message.id);
    if (message.error) call.reject(new Error(JSON.stringify(message.error)));
    else call.resolve(message.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      waiting.set(++id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    send,
    close: () => socket.close(),
    async v8() {
      const expression =
        'Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 2 ** 20 * 10) / 10]))';
      const { result } = await send('Runtime.evaluate', { expression, returnByValue: true });
      const { heapTotal, heapUsed, external, arrayBuffers } = result.value;
      return {
        heapTotalMb: heapTotal,
        heapUsedMb: heapUsed,
        externalMb: external,
        arrayBuffersMb: arrayBuffers,
      };
    },
    /** A full collection with V8's memory reduced, as under memory pressure. */
    collect: () => send('HeapProfiler.collectGarbage'),
  };
}

/**
 * The server's memory as it is, then after a full collection, then after malloc_trim: each step
 * with the system's and V8's figures (`inspector` from inspectorOf; null: the first step alone).
 */
export async function breakdown(pid, inspector) {
  const step = async () => ({
    ...anonymousOf(pid),
    ...(inspector ? await inspector.v8() : {}),
    malloc: mallocOf(pid),
  });
  const asItIs = await step();
  if (!inspector) return { asItIs };
  await inspector.collect();
  await sleep(500);
  const collected = await step();
  mallocOf(pid, true);
  await sleep(300);
  const trimmed = await step();
  return { asItIs, collected, trimmed };
}
