/** The load pass of an import: the checked files streamed again through the store's bulk sink. */
import type { AdminWrites } from '../store/store.js';
import type { ImportSource } from './check-rows.js';
import { IMPORT_TABLES, type ImportTable } from './import-tables.js';
import type { ImportProblem } from './import-problems.js';
import { checkRow } from './row-rules.js';
import { streamSource } from './source-files.js';

const BATCH = 1000;

/** A file gave a problem on the load pass that the check pass did not see: it changed between. */
export class SourceChangedError extends Error {
  constructor(problem: ImportProblem) {
    super(`${problem.file} changed while it was being imported; nothing was imported`);
  }
}

/**
 * Inserts every row in dependency order (the sources come in that order) in batches, in one
 * transaction committed by `finish()`, which also rebuilds the report fact tables and gives the
 * data a new stamp; any failure rolls everything back. Returns rows written per table.
 */
export async function loadSources(
  sources: readonly ImportSource[],
  workspaceId: string,
  store: Pick<AdminWrites, 'openSink'>,
): Promise<Record<ImportTable, number>> {
  const counts = Object.fromEntries(IMPORT_TABLES.map((t) => [t, 0])) as Record<
    ImportTable,
    number
  >;
  const changed = {
    push: (problem: ImportProblem) => {
      throw new SourceChangedError(problem);
    },
  };
  const sink = await store.openSink();
  try {
    for (const source of sources) {
      const { file, table, format } = source;
      for await (const rows of streamSource(source, source.text(), changed)) {
        const checked = rows.map(({ line, values }) => {
          const { row, problems } = checkRow(table, values, { workspaceId, format });
          if (problems.length > 0) changed.push({ file, line, message: problems[0] });
          return row;
        });
        for (let start = 0; start < checked.length; start += BATCH)
          await sink.insert(table, checked.slice(start, start + BATCH));
        counts[table] += checked.length;
      }
    }
    await sink.finish();
  } catch (error) {
    await sink.abort();
    throw error;
  }
  return counts;
}
