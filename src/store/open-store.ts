import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/** Opens the store a `--db` value names: a SQLite file path (PostgreSQL URLs come with its store). */
export async function openStore(db: string): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(db)) {
    throw new Error('PostgreSQL support is not built yet; use a SQLite file path for --db.');
  }
  const store = new SqliteStore(db);
  await store.migrate();
  return store;
}
