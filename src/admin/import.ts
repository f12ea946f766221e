import type { ImportTable } from '../importer/import-tables.js';
import { checkRows } from '../importer/check-rows.js';
import type { ImportProblem } from '../importer/import-problems.js';
import { checkKeys, keyLookups } from '../importer/key-checks.js';
import { loadTables } from '../importer/load-tables.js';
import { readImportDirectory } from '../importer/read-directory.js';
import { findStoredKeys } from '../importer/stored-keys.js';
import type { AdminWrites } from '../store/store.js';
import { requireWorkspace } from './workspaces.js';

export type ImportOutcome =
  | { imported: true; counts: Record<ImportTable, number> }
  | { imported: false; problems: ImportProblem[] };

/**
 * Loads a directory of CSV or NDJSON files into one workspace, all or nothing: every row is
 * checked before anything is written, and with any problem nothing is.
 */
export async function importDirectory(
  store: AdminWrites,
  workspaceId: string,
  dir: string,
): Promise<ImportOutcome> {
  await requireWorkspace(store, workspaceId);
  const read = await readImportDirectory(dir);
  if (read.names.length === 0) throw new Error(`${dir} holds no files to import`);
  const checked = checkRows(read.files, workspaceId);
  const stored = await findStoredKeys(store, workspaceId, keyLookups(checked.tables));
  const problems = [
    ...read.problems,
    ...checked.problems,
    ...checkKeys(checked.tables, stored, workspaceId),
  ];
  if (problems.length > 0) return { imported: false, problems };
  return { imported: true, counts: await loadTables(store, checked.tables) };
}
