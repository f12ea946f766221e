/** Writes checked rows through the store's bulk sink: one transaction, all or nothing. */
import type { AdminWrites } from '../store/store.js';
import { IMPORT_TABLES, type ImportTable } from './import-tables.js';
import type { CheckedTable } from './key-checks.js';

const BATCH = 1000;

/**
 * Inserts in dependency order and commits with `finish()`, which also rebuilds the report fact
 * tables; any failure rolls everything back. Returns rows written per importable table.
 */
export async function loadTables(
  store: Pick<AdminWrites, 'openSink'>,
  tables: readonly CheckedTable[],
): Promise<Record<ImportTable, number>> {
  const counts = Object.fromEntries(IMPORT_TABLES.map((t) => [t, 0])) as Record<
    ImportTable,
    number
  >;
  const ordered = [...tables].sort(
    (a, b) => IMPORT_TABLES.indexOf(a.table) - IMPORT_TABLES.indexOf(b.table),
  );
  const sink = await store.openSink();
  try {
    for (const { table, rows } of ordered) {
      for (let start = 0; start < rows.length; start += BATCH) {
        await sink.insert(
          table,
          rows.slice(start, start + BATCH).map(({ row }) => row),
        );
      }
      counts[table] += rows.length;
    }
    await sink.finish();
  } catch (error) {
    await sink.abort();
    throw error;
  }
  return counts;
}
