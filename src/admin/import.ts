import { checkSources, type ImportSource } from '../importer/check-rows.js';
import { CappedProblems, type ImportProblem } from '../importer/import-problems.js';
import { IMPORT_TABLES, type ImportTable } from '../importer/import-tables.js';
import { loadSources } from '../importer/load-tables.js';
import { latestVersionTime } from '../importer/row-rules.js';
import { listImportDirectory, sourceText } from '../importer/read-directory.js';
import { DeletionRefusedError } from '../store/load/deletions.js';
import type { LoadCounts, LoadOptions, LoadResult } from '../store/load/load.js';
import type { AdminWrites } from '../store/store.js';
import { requireWorkspace } from './workspaces.js';

export type ImportOutcome =
  | {
      imported: true;
      /**
       * Per table: rows inserted, updated, already stored as given, skipped as older, and records
       * deleted (DESIGN §4.13).
       */
      counts: Record<ImportTable, LoadCounts>;
      /** The data version after the load (unchanged when the load changed nothing). */
      dataVersion: number;
    }
  /** `problems` holds the first PROBLEMS_KEPT of the `total` found. */
  | { imported: false; problems: ImportProblem[]; total: number };

/**
 * Loads a directory of CSV or NDJSON files into one workspace, all or nothing, in two streamed
 * passes over the files: every row is checked before anything is written, and with any problem
 * nothing is; then rows are upserted by id (DESIGN §4.11). Memory does not grow with the files'
 * size.
 */
export async function importDirectory(
  store: AdminWrites,
  workspaceId: string,
  dir: string,
  loadOptions: LoadOptions = {},
): Promise<ImportOutcome> {
  await requireWorkspace(store, workspaceId);
  const listed = await listImportDirectory(dir);
  if (listed.names.length === 0) throw new Error(`${dir} holds no files to import`);
  const problems = new CappedProblems();
  for (const problem of listed.problems) problems.push(problem);
  const sources: ImportSource[] = listed.sources.map((source) => ({
    ...source,
    text: () => sourceText(source.path),
  }));
  // One clock for both passes: a time later than it plus 5 minutes is refused (DESIGN §4.11).
  const options = { workspaceId, notAfter: latestVersionTime(Date.now()) };
  await checkSources(sources, options, store, problems);
  if (problems.total > 0)
    return { imported: false, problems: problems.list, total: problems.total };
  let loaded: LoadResult;
  try {
    loaded = await loadSources(sources, options, store, loadOptions);
  } catch (error) {
    // Deletions of records others still refer to: known only as they apply, in the load.
    if (!(error instanceof DeletionRefusedError)) throw error;
    for (const problem of error.problems) problems.push(problem);
    return { imported: false, problems: problems.list, total: problems.total };
  }
  const counts = Object.fromEntries(IMPORT_TABLES.map((t) => [t, loaded.counts[t]])) as Record<
    ImportTable,
    LoadCounts
  >;
  return { imported: true, counts, dataVersion: loaded.version };
}
