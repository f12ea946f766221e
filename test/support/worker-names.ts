/**
 * A worker given a name and email no other row holds, written through the store's load writer as
 * an import would (a new data version, in the change feed): what erasure tests look for in
 * webhook bodies, receivers' answers and the database files.
 */
import type { Harness } from './harness.js';
import { WS } from './harness.js';
import { later } from './random-loads.js';

export interface NamedWorker {
  id: string;
  name: string;
  email: string;
}

/** Renames the workspace's `n`th worker (by id) to a name and email carrying `mark`. */
export async function renameWorker(h: Harness, n: number, mark: string): Promise<NamedWorker> {
  const [worker] = await h.all<Record<string, unknown>>(
    'SELECT * FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1 OFFSET ?',
    WS,
    n,
  );
  const named = {
    id: String(worker.id),
    name: `Quintessa Echoed ${mark}`,
    email: `q.echoed.${mark}@example.com`,
  };
  const load = await h.store.openLoad();
  try {
    await load.insert('workers', [
      { ...worker, display_name: named.name, work_email: named.email, updated_at: later() },
    ]);
    await load.finish();
  } catch (error) {
    await load.abort();
    throw error;
  }
  return named;
}
