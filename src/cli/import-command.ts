import { statSync } from 'node:fs';
import { checkRows } from '../importer/check-rows.js';
import { formatProblems } from '../importer/import-problems.js';
import { checkKeys, keyLookups } from '../importer/key-checks.js';
import { loadTables } from '../importer/load-tables.js';
import { readImportDirectory } from '../importer/read-directory.js';
import { findStoredKeys } from '../importer/stored-keys.js';
import { openStore } from '../store/open-store.js';
import { dbOf, parse, requiredId, UsageError } from './args.js';

/**
 * `import`: loads a directory of CSV or NDJSON files into one workspace, all or nothing. Every
 * row is checked before anything is written; problems go to stderr as `file:line: message`.
 */
export async function importCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(
    argv,
    { db: { type: 'string' }, workspace: { type: 'string' } },
    true,
  );
  if (positionals.length !== 1) throw new UsageError('import takes exactly one DIR');
  const [dir] = positionals;
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${dir} is not a directory`);
  const workspaceId = requiredId(values.workspace, '--workspace');
  const store = await openStore(dbOf(values.db));
  try {
    if (!(await store.getWorkspace(workspaceId)))
      throw new UsageError(`unknown workspace: ${workspaceId}`);
    const read = await readImportDirectory(dir);
    if (read.names.length === 0) throw new Error(`${dir} holds no files to import`);
    const checked = checkRows(read.files, workspaceId);
    const stored = await findStoredKeys(store, workspaceId, keyLookups(checked.tables));
    const problems = [
      ...read.problems,
      ...checked.problems,
      ...checkKeys(checked.tables, stored, workspaceId),
    ];
    if (problems.length > 0) {
      process.stderr.write(`${formatProblems(problems).join('\n')}\n`);
      throw new Error(
        `nothing imported: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
      );
    }
    const counts = await loadTables(store, checked.tables);
    process.stdout.write(`${JSON.stringify({ workspace: workspaceId, counts }, null, 2)}\n`);
  } finally {
    await store.close();
  }
}
