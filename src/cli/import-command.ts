import { statSync } from 'node:fs';
import { importDirectory } from '../admin/import.js';
import type { Config } from '../config.js';
import { formatProblems, PROBLEM_CAP } from '../importer/import-problems.js';
import { dbOf, openDb, parse, requiredId, UsageError } from './args.js';
import { writeFactsAfterLoad } from './facts-command.js';

/**
 * `import`: loads a directory of CSV or NDJSON files into one workspace, all or nothing
 * (admin/import.ts); problems go to stderr as `file:line: message`.
 */
export async function importCommand(argv: string[], config: Config): Promise<void> {
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
  const db = dbOf(values.db, config);
  const store = await openDb(db, config);
  try {
    const outcome = await importDirectory(store, workspaceId, dir);
    if (!outcome.imported) {
      const { problems, total } = outcome;
      process.stderr.write(`${formatProblems(problems, PROBLEM_CAP, total).join('\n')}\n`);
      throw new Error(`nothing imported: ${total} problem${total === 1 ? '' : 's'}`);
    }
    await writeFactsAfterLoad(store, db, config);
    process.stdout.write(
      `${JSON.stringify({ workspace: workspaceId, counts: outcome.counts }, null, 2)}\n`,
    );
  } finally {
    await store.close();
  }
}
