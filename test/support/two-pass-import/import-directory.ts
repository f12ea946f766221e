import { importOutcome, importPlan, type ImportOutcome } from '../../../src/admin/import.js';
import type { LoadOptions } from '../../../src/store/load/load.js';
import type { AdminWrites } from '../../../src/store/store.js';
import { checkSources } from './check-rows.js';
import { loadSources } from './load-tables.js';

/**
 * The importer before issue 59 (two passes: every row checked, with a scratch SQLite index of
 * the keys, then the files read again and written), kept here as the oracle the one-pass
 * importer (src/importer/import-pass.ts) is tested against: any load gives the same database and
 * the same problems through both.
 */
export async function importDirectoryTwoPass(
  store: AdminWrites,
  workspaceId: string,
  dir: string,
  loadOptions: LoadOptions = {},
): Promise<ImportOutcome> {
  const { sources, options, problems } = await importPlan(store, workspaceId, dir);
  return importOutcome(problems, async () => {
    await checkSources(sources, options, store, problems);
    return problems.total > 0 ? null : loadSources(sources, options, store, loadOptions);
  });
}
