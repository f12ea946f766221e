import { generateSeed, type Scale } from '../seed/generate.js';
import type { SeedSummary } from '../seed/generate.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { dbOf, integerOf, isCalendarDate, parse, todayUtc, UsageError } from './args.js';

const SCALES: readonly Scale[] = ['tiny', 'small', 'medium', 'large'];

/** Seeds a store all or nothing: a failure leaves it as it was. */
export async function seedStore(
  store: Store,
  options: { scale: Scale; seed: number; asOf: string },
): Promise<SeedSummary> {
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

export async function seedCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    scale: { type: 'string', default: 'small' },
    seed: { type: 'string' },
    'as-of': { type: 'string' },
    force: { type: 'boolean', default: false },
  });
  const scale = values.scale as Scale;
  if (!SCALES.includes(scale)) throw new UsageError('--scale must be tiny, small, medium or large');
  const seed = integerOf(values.seed, '--seed', 1);
  const asOf = values['as-of'] ?? todayUtc();
  if (!isCalendarDate(asOf)) throw new UsageError('--as-of must be a calendar date YYYY-MM-DD');
  const store = await openStore(dbOf(values.db), { create: true });
  try {
    if (await store.hasData()) {
      if (!values.force)
        throw new UsageError('the database already holds data; pass --force to replace it');
      await store.clearData();
    }
    const summary = await seedStore(store, { scale, seed, asOf });
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await store.close();
  }
}
