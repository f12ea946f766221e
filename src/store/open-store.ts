import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//.test(db);
}

/** Opens and migrates the store a `--db` value names: a `postgres://` URL or a SQLite file path. */
export async function openStore(db: string): Promise<Store> {
  const store = isPostgresUrl(db)
    ? new PostgresStore(db, { poolSize: Number(process.env.VMS_READ_PG_POOL_SIZE ?? 10) })
    : new SqliteStore(db);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
