/** The load pass of an import: the checked files streamed again through the store's load writer. */
import { LoadConflictError } from '../../../src/store/load/load-writer.js';
import type { Deletion, LoadResult, LoadOptions } from '../../../src/store/load/load.js';
import { DELETIONS } from '../../../src/importer/import-tables.js';
import type { AdminWrites } from '../../../src/store/store.js';
import type { ImportSource } from './check-rows.js';
import type { ImportProblem } from '../../../src/importer/import-problems.js';
import type { RowOptions } from '../../../src/importer/row-rules.js';
import { checkRow } from './row-rules-generic.js';
import { streamSource } from '../../../src/importer/source-files.js';

const BATCH = 1000;

/** A file gave a problem on the load pass that the check pass did not see: it changed between. */
export class SourceChangedError extends Error {
  constructor(problem: ImportProblem) {
    super(`${problem.file} changed while it was being imported; nothing was imported`);
  }
}

/**
 * Another load committed between this import's check and its write, and changed a row the
 * import also brings so that the rules now refuse it: nothing of this import was written.
 */
export class ConcurrentLoadError extends Error {
  constructor(conflict: LoadConflictError) {
    super(
      `another load changed the data while this import was being checked (${conflict.message}); nothing was imported: run it again`,
    );
  }
}

/**
 * Upserts every row in dependency order (the sources come in that order) in batches through the
 * store's load writer, in one transaction committed with a new data version by `finish()`; any
 * failure rolls everything back. Returns what the load did per table.
 */
export async function loadSources(
  sources: readonly ImportSource[],
  options: Omit<RowOptions, 'format'>,
  store: Pick<AdminWrites, 'openLoad'>,
  loadOptions: LoadOptions = {},
): Promise<LoadResult> {
  const changed = {
    push: (problem: ImportProblem) => {
      throw new SourceChangedError(problem);
    },
  };
  const sink = await store.openLoad(loadOptions);
  try {
    for (const source of sources) {
      const { file, table, format } = source;
      for await (const rows of streamSource(source, source.text(), changed)) {
        const checked = rows.map(({ line, values }) => {
          const { row, problems } = checkRow(table, values, { ...options, format });
          if (problems.length > 0) changed.push({ file, line, message: problems[0] });
          return { line, row };
        });
        if (table === DELETIONS)
          await sink.remove(
            options.workspaceId,
            checked.map(({ line, row }) => ({
              type: row.type as Deletion['type'],
              id: String(row.id),
              deleted_at: String(row.deleted_at),
              file,
              line,
            })),
          );
        else
          for (let start = 0; start < checked.length; start += BATCH)
            await sink.insert(
              table,
              checked.slice(start, start + BATCH).map((c) => c.row),
            );
      }
    }
    return await sink.finish();
  } catch (error) {
    await sink.abort();
    throw error instanceof LoadConflictError ? new ConcurrentLoadError(error) : error;
  }
}
