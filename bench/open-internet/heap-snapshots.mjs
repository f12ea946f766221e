// What grew in the server's live heap (`--heap-snapshots`): a snapshot on SIGUSR2 before and
// after an attack, its objects counted by constructor.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MB, round, sleep } from './common.mjs';

/**
 * A heap snapshot of the server (it was started with `heapSnapshots`): SIGUSR2, the file Node
 * writes once it stops growing, read and removed. A snapshot holds what is alive after a full
 * collection: its size, and its objects by constructor (other nodes by their V8 type).
 */
export async function heapSnapshot(server) {
  const dir = server.diagnosticDir;
  const known = new Set(readdirSync(dir));
  process.kill(server.pid, 'SIGUSR2');
  let file = null;
  let size = -1;
  let stableSince = 0;
  for (let i = 0; i < 1200 && !file; i++) {
    await sleep(250);
    const fresh = readdirSync(dir).find((f) => !known.has(f) && f.endsWith('.heapsnapshot'));
    if (!fresh) continue;
    const now = statSync(join(dir, fresh)).size;
    if (now !== size || now === 0) {
      size = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince > 2000) file = join(dir, fresh);
  }
  if (!file) return null;
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file, { force: true });
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[fields.indexOf('type')];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byName = {};
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const bytes = snap.nodes[i + sizeAt];
    total += bytes;
    const type = types[snap.nodes[i + typeAt]];
    const name = type === 'object' ? snap.strings[snap.nodes[i + nameAt]] : `(${type})`;
    const entry = (byName[name] ??= { n: 0, bytes: 0 });
    entry.n++;
    entry.bytes += bytes;
  }
  return { liveMb: round(total / MB), byName };
}

/** What grew between two heap snapshots: the live heap, and the 12 kinds that grew most. */
export function heapGrowth(before, after) {
  if (!before || !after) return null;
  const grew = Object.entries(after.byName)
    .map(([name, a]) => {
      const b = before.byName[name] ?? { n: 0, bytes: 0 };
      return {
        name,
        objects: a.n - b.n,
        kb: round((a.bytes - b.bytes) / 1024),
      };
    })
    .sort((x, y) => y.kb - x.kb)
    .slice(0, 12);
  return { liveMbBefore: before.liveMb, liveMbAfter: after.liveMb, grew };
}
