import { statSync } from 'node:fs';
import type { Config } from '../config.js';
import { formatProblems, PROBLEM_CAP } from '../importer/import-problems.js';
import { DB_FLAG, dbOf, openDb, requiredId, UsageError } from './args.js';
import { defineCommand } from './command.js';
import { SUMMARIES } from './summaries.js';

/**
 * `import`: loads a directory of CSV or NDJSON files into one workspace, all or nothing
 * (admin/import.ts); problems go to stderr as `file:line: message`.
 */
export const importCommand = defineCommand({
  name: 'import',
  synopsis: '--db D --workspace W DIR',
  summary: SUMMARIES['import'],
  description:
    'Loads the CSV or NDJSON files of DIR (one per table, named <table>.csv or\n' +
    '<table>.ndjson) into workspace W, all or nothing: problems go to stderr as\n' +
    'file:line: message with exit 1 and nothing written. Rows upsert by id: a later\n' +
    'updated_at replaces the stored record, the same row changes nothing, an earlier\n' +
    'one is skipped; a column the file leaves out keeps its stored value.\n' +
    'deletions.csv or deletions.ndjson (type, id, deleted_at) deletes records after\n' +
    'the rows. On success stdout gets JSON: per table {inserted, updated, unchanged,\n' +
    'skipped, deleted}, and the data version after the load. Running servers bring\n' +
    'their columnar report copies up to date by themselves.',
  flags: { db: DB_FLAG, workspace: { type: 'string', value: 'W', help: 'the workspace id' } },
  positionals: true,
  run: ({ values, positionals }, config) => load(values, positionals, config),
});

async function load(
  values: { db?: string; workspace?: string },
  positionals: string[],
  config: Config,
): Promise<void> {
  if (positionals.length !== 1) throw new UsageError('import takes exactly one DIR');
  const [dir] = positionals;
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${dir} is not a directory`);
  const workspaceId = requiredId(values.workspace, '--workspace');
  const db = dbOf(values.db, config);
  const store = await openDb(db, config);
  try {
    // Loaded here, not at start: the importer's modules are this command's alone.
    const { importDirectory } = await import('../admin/import.js');
    const outcome = await importDirectory(store, workspaceId, dir, {
      tombstoneDays: config.tombstoneDays,
    });
    if (!outcome.imported) {
      const { problems, total } = outcome;
      process.stderr.write(`${formatProblems(problems, PROBLEM_CAP, total).join('\n')}\n`);
      throw new Error(`nothing imported: ${total} problem${total === 1 ? '' : 's'}`);
    }
    const { counts, dataVersion } = outcome;
    process.stdout.write(
      `${JSON.stringify({ workspace: workspaceId, counts, dataVersion }, null, 2)}\n`,
    );
  } finally {
    // Whatever closing the database meets (a checkpoint on a full disk) changes nothing of the
    // load, committed or not: the exit code tells the load's outcome alone.
    await store.close().catch(() => {});
  }
}
