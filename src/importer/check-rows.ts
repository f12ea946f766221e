/**
 * Every row of every source file through the row rules, collecting `file:line` problems. Pure:
 * the texts come from the caller; the checks that need the store follow in key-checks.ts.
 */
import type { ImportProblem } from './import-problems.js';
import type { CheckedTable } from './key-checks.js';
import { checkRow } from './row-rules.js';
import { parseSource, type SourceFile } from './source-files.js';

export interface SourceText {
  source: SourceFile;
  text: string;
}

export function checkRows(
  files: readonly SourceText[],
  workspaceId: string,
): { tables: CheckedTable[]; problems: ImportProblem[] } {
  const tables: CheckedTable[] = [];
  const problems: ImportProblem[] = [];
  for (const { source, text } of files) {
    const parsed = parseSource(source, text);
    for (const problem of parsed.problems) problems.push(problem);
    const rows = parsed.rows.rows.map(({ line, values }) => {
      const checked = checkRow(source.table, values, { workspaceId, format: source.format });
      for (const message of checked.problems) problems.push({ file: source.file, line, message });
      return { line, row: checked.row };
    });
    tables.push({ file: source.file, table: source.table, rows });
  }
  return { tables, problems };
}
