import { statSync } from 'node:fs';
import { CappedProblems, type ImportProblem } from '../importer/import-problems.js';
import { IMPORT_TABLES, type ImportTable } from '../importer/import-tables.js';
import { importSources, type ImportSource } from '../importer/import-pass.js';
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
 * Loads a directory of CSV or NDJSON files into one workspace, all or nothing, in one streamed
 * pass over the files (importer/import-pass.ts): each row checked and upserted by id (DESIGN
 * §4.11) in one transaction, which any problem rolls back; the files are still read to their end
 * so that every problem is reported. Memory does not grow with the files' size.
 */
export async function importDirectory(
  store: AdminWrites,
  workspaceId: string,
  dir: string,
  loadOptions: LoadOptions = {},
): Promise<ImportOutcome> {
  const { sources, options, problems } = await importPlan(store, workspaceId, dir);
  return importOutcome(problems, () =>
    importSources(sources, options, store, problems, { failed: problems.total > 0, loadOptions }),
  );
}

/** The files of an import directory as sources, the load's options, the listing's problems. */
export async function importPlan(store: AdminWrites, workspaceId: string, dir: string) {
  await requireWorkspace(store, workspaceId);
  const listed = await listImportDirectory(dir);
  if (listed.names.length === 0) throw new Error(`${dir} holds no files to import`);
  const problems = new CappedProblems();
  for (const problem of listed.problems) problems.push(problem);
  const sources: ImportSource[] = listed.sources.map((source) => ({
    ...source,
    text: () => sourceText(source.path),
    bytes: statSync(source.path).size,
  }));
  // The load's clock: a time later than it plus 5 minutes is refused (DESIGN §4.11).
  const options = { workspaceId, notAfter: latestVersionTime(Date.now()) };
  return { sources, options, problems };
}

/** What a load gives (null: refused with `problems`), as an outcome. */
export async function importOutcome(
  problems: CappedProblems,
  load: () => Promise<LoadResult | null>,
): Promise<ImportOutcome> {
  let loaded: LoadResult | null;
  try {
    loaded = await load();
  } catch (error) {
    // Deletions of records others still refer to: known only as they apply, in the load.
    if (!(error instanceof DeletionRefusedError)) throw error;
    for (const problem of error.problems) problems.push(problem);
    return { imported: false, problems: problems.list, total: problems.total };
  }
  if (!loaded) return { imported: false, problems: problems.list, total: problems.total };
  const { counts, version } = loaded;
  return {
    imported: true,
    counts: Object.fromEntries(IMPORT_TABLES.map((t) => [t, counts[t]])) as Record<
      ImportTable,
      LoadCounts
    >,
    dataVersion: version,
  };
}
