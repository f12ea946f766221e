import { generateSeed, type Scale, type SeedSummary } from '../seed/generate.js';
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
  const sink = await store.openSink();
  try {
    const summary = await generateSeed(options, sink);
    await sink.finish();
    return summary;
  } catch (error) {
    await sink.abort();
    throw error;
  }
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
