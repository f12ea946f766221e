import { resolve } from 'node:path';
import { SCALES, seedDatabase, seedSqliteFile, StoreHoldsDataError } from '../admin/seed.js';
import { isPostgresUrl } from '../store/open-store.js';
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
  const options = { scale, seed, asOf, replace: values.force };
  const summary = await seedAt(db, options, config).catch((error: unknown) => {
    if (error instanceof StoreHoldsDataError)
      throw new UsageError(`${error.message}; pass --force to replace it`);
    throw error;
  });
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
}

/**
 * A SQLite file is written anew and put in place (no write-ahead log the size of the data);
 * PostgreSQL is seeded in one transaction. Either way the columnar copy follows.
 */
async function seedAt(db: string, options: Parameters<typeof seedDatabase>[1], config: Config) {
  if (!isPostgresUrl(db))
    return seedSqliteFile(resolve(db), options, (store) => writeFactsAfterLoad(store, db, config));
  const store = await openDb(db, config, { create: true });
  try {
    const summary = await seedDatabase(store, options);
    await writeFactsAfterLoad(store, db, config);
    return summary;
  } finally {
    await store.close();
  }
}
