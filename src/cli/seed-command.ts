import { resolve } from 'node:path';
import { AdminError } from '../admin/admin-error.js';
import { SCALES, seedDatabase, seedSqliteFile, StoreHoldsDataError } from '../admin/seed.js';
import { isPostgresUrl } from '../store/open-store.js';
import type { Config } from '../config.js';
import type { Scale } from '../seed/generate.js';
import { writeFactsAfterLoad } from './facts-command.js';
import { DB_FLAG, dbOf, integerOf, isCalendarDate, openDb, todayUtc, UsageError } from './args.js';
import { defineCommand } from './command.js';
import { SUMMARIES } from './summaries.js';

export const seedCommand = defineCommand({
  name: 'seed',
  synopsis: '--db D [--scale tiny|small|medium|large] [--seed N] [--as-of YYYY-MM-DD] [--force]',
  summary: SUMMARIES['seed'],
  description:
    'Creates the schema and deterministic synthetic data (three workspaces) in D, which it\n' +
    'creates if missing, and prints a JSON summary with the workspace ids and counts.\n' +
    'A database that already holds data is refused unless --force.',
  flags: {
    db: DB_FLAG,
    scale: { type: 'string', value: 'S', help: 'tiny, small (default), medium or large' },
    seed: { type: 'string', value: 'N', help: 'the random seed, a whole number (default 1)' },
    'as-of': { type: 'string', value: 'DATE', help: "the data's last day (default today, UTC)" },
    force: { type: 'boolean', help: 'replace the data of a database that holds some' },
  },
  async run({ values }, config) {
    const scale = (values.scale ?? 'small') as Scale;
    if (!SCALES.includes(scale))
      throw new UsageError('--scale must be tiny, small, medium or large');
    const seed = integerOf(values.seed, '--seed', 1);
    const asOf = values['as-of'] ?? todayUtc();
    if (!isCalendarDate(asOf)) throw new UsageError('--as-of must be a calendar date YYYY-MM-DD');
    const db = dbOf(values.db, config);
    const options = { scale, seed, asOf, replace: values.force ?? false };
    const summary = await seedAt(db, options, config).catch((error: unknown) => {
      if (error instanceof StoreHoldsDataError)
        throw new AdminError(`${error.message}; pass --force to replace it`);
      throw error;
    });
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  },
});

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
