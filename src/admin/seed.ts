import { generateSeed, type Scale, type SeedSummary } from '../seed/generate.js';
import { sqliteSeedTarget } from '../store/open-store.js';
import { seedIntoNewFile } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { AdminError } from './admin-error.js';

export const SCALES: readonly Scale[] = ['tiny', 'small', 'medium', 'large'];

export interface SeedOptions {
  scale: Scale;
  seed: number;
  /** The day the synthetic data ends, YYYY-MM-DD. */
  asOf: string;
}

/** The store already holds data and `replace` was not asked for. */
export class StoreHoldsDataError extends AdminError {
  constructor() {
    super('the database already holds data');
  }
}

/** Seeds a store all or nothing: a failure leaves it as it was. */
export async function seedStore(store: Store, options: SeedOptions): Promise<SeedSummary> {
  const sink = await store.openLoad();
  let summary: SeedSummary;
  try {
    summary = await generateSeed(options, sink);
    await sink.finish();
  } catch (error) {
    await sink.abort();
    throw error;
  }
  // Committed: statistics only help the planner, and the database's own upkeep (autovacuum,
  // SQLite's next optimize) brings them later if this fails.
  await store.refreshStatistics().catch(() => {});
  return summary;
}

/** Seeds a store that holds no data, or, with `replace`, clears the data it holds first. */
export async function seedDatabase(
  store: Store,
  options: SeedOptions & { replace: boolean },
): Promise<SeedSummary> {
  if (await store.hasData()) {
    if (!options.replace) throw new StoreHoldsDataError();
    await store.clearData();
  }
  const { scale, seed, asOf } = options;
  return seedStore(store, { scale, seed, asOf });
}

/**
 * Seeds the SQLite file at `path` by writing a new file and putting it in place (see
 * seedIntoNewFile): an existing file that holds data is replaced only with `replace`. `after`
 * runs on the new database before it is put in place (the columnar copy is written there).
 */
export async function seedSqliteFile(
  path: string,
  options: SeedOptions & { replace: boolean },
  after: (store: Store) => Promise<void> = async () => {},
): Promise<SeedSummary> {
  const target = sqliteSeedTarget(path);
  if (target === 'foreign')
    throw new AdminError(`${path} is not a vms-read database; seed does not overwrite it`);
  if (target === 'data' && !options.replace) throw new StoreHoldsDataError();
  const { scale, seed, asOf } = options;
  return seedIntoNewFile(path, async (store) => {
    const summary = await seedStore(store, { scale, seed, asOf });
    await after(store);
    return summary;
  });
}
