import { SCALES, seedDatabase, StoreHoldsDataError } from '../admin/seed.js';
import type { Config } from '../config.js';
import type { Scale } from '../seed/generate.js';
import { writeFactsAfterLoad } from './facts-command.js';
import { dbOf, openDb, integerOf, isCalendarDate, parse, todayUtc, UsageError } from './args.js';

export async function seedCommand(argv: string[], config: Config): Promise<void> {
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
  const db = dbOf(values.db, config);
  const store = await openDb(db, config, { create: true });
  try {
    const summary = await seedDatabase(store, { scale, seed, asOf, replace: values.force }).catch(
      (error: unknown) => {
        if (error instanceof StoreHoldsDataError)
          throw new UsageError(`${error.message}; pass --force to replace it`);
        throw error;
      },
    );
    await writeFactsAfterLoad(store, db, config);
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await store.close();
  }
}
