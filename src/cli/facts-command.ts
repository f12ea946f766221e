import type { Config } from '../config.js';
import { writeColumnarFacts, type ReportFactsOptions } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { DB_FLAG, dbOf, openDb } from './args.js';
import { defineCommand } from './command.js';
import { SUMMARIES } from './summaries.js';

/** The report engine settings of the configuration. */
export function factsSettings(config: Config): ReportFactsOptions {
  return {
    engine: config.reportEngine,
    root: config.factsDir,
    memoryLimit: config.factsMemory,
    rollups: config.rollups,
  };
}

/**
 * After a load (seed, import, refresh): writes the columnar copy of the report facts for the new
 * data stamp, so a server answers from it at once, and says where on stderr.
 */
export async function writeFactsAfterLoad(store: Store, db: string, config: Config): Promise<void> {
  const built = await writeColumnarFacts(store, db, factsSettings(config));
  if (built)
    process.stderr.write(`columnar report facts written to ${built.path} in ${built.ms} ms\n`);
}

/** `facts refresh --db D` (its description says what it does and when). */
export const factsRefreshCommand = defineCommand({
  name: 'facts refresh',
  synopsis: '--db D',
  summary: SUMMARIES['facts refresh'],
  description:
    'Rebuilds the period zones, gives the data a new stamp and writes the columnar copy of\n' +
    'the report facts from the records: for rows written into the database by other means\n' +
    'than seed and import. Running servers switch to the new copy on their next report.',
  flags: { db: DB_FLAG },
  async run({ values }, config) {
    const db = dbOf(values.db, config);
    const store = await openDb(db, config);
    try {
      await store.refreshReportFacts();
      await writeFactsAfterLoad(store, db, config);
    } finally {
      await store.close();
    }
  },
});
