/**
 * What the importers are compared on (test/importer/same-as-two-pass.test.ts,
 * staged-import.test.ts): the outcome as the CLI shows it, and every row an import writes.
 */
import type { importDirectory } from '../../../src/admin/import.js';
import { formatProblems } from '../../../src/importer/import-problems.js';
import { CHANGE_LOG_TABLES, TOMBSTONE_TABLES } from '../../../src/store/sql/change-log.js';
import { PERIOD_ZONES_TABLE } from '../../../src/store/sql/period-zones.js';
import type { TestDatabase } from '../test-databases.js';
import { LOAD_TABLES } from './random-loads.js';

const TABLES = [
  ...LOAD_TABLES,
  ...[...CHANGE_LOG_TABLES, ...TOMBSTONE_TABLES, PERIOD_ZONES_TABLE].map((t) => t.name),
];

/** A load's own clock (when a supplier's audience lost it, say): the same for both importers. */
const STARTED = new Date().toISOString();
const CLOCK = '<the load’s clock>';
const onTheClock = (value: unknown) =>
  typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) && value >= STARTED;
/**
 * A row as JSON with the load's clock hidden. Rows are flat, so their columns are looked at
 * directly: JSON.stringify with a replacer took three times as long over the 70,000 rows a
 * comparison reads. A row holding an object (a JSON column) goes through the replacer.
 */
function clockless(row: Record<string, unknown>): string {
  let shown = row;
  for (const key in row) {
    let value = row[key];
    if (value instanceof Date) value = value.toJSON();
    else if (typeof value === 'object' && value !== null)
      return JSON.stringify(row, (_key, inner: unknown) => (onTheClock(inner) ? CLOCK : inner));
    if (onTheClock(value)) {
      if (shown === row) shown = { ...row };
      shown[key] = CLOCK;
    }
  }
  return JSON.stringify(shown);
}

/** Every row of the tables an import writes, each table's rows in one order. */
export async function contents(db: TestDatabase): Promise<Record<string, string[]>> {
  const dump: Record<string, string[]> = {};
  for (const table of TABLES)
    dump[table] = (await db.all(`SELECT * FROM ${table}`)).map(clockless).sort();
  dump.version = await version(db);
  return dump;
}

export const version = async (db: TestDatabase) =>
  (await db.all("SELECT value FROM meta WHERE key = 'data_version'")).map((r) => String(r.value));

/** An outcome as compared: counts and version, or the problems as the CLI prints them. */
export function shownOutcome(
  outcome: Awaited<ReturnType<typeof importDirectory>>,
): Record<string, unknown> {
  return outcome.imported
    ? { counts: outcome.counts, dataVersion: outcome.dataVersion }
    : { problems: formatProblems(outcome.problems, 10_000, outcome.total) };
}
