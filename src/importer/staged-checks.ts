/**
 * The checks across rows of a staged import (PostgreSQL, store/load/staging.ts), asked of the
 * staging tables as sets once every file is read, with the same messages, lines and order within
 * a line as the import that checks each batch as it arrives (import-pass.ts): for each table in
 * dependency order, the stored rows of its ids judged (one join), the new rows that leave
 * required columns out (an anti-join), the suppliers' codes, then each reference column's ids
 * that neither the files nor the workspace hold (anti-joins), left to right.
 */
import type { Staging } from '../store/load/staging.js';
import type { AdminWrites } from '../store/store.js';
import type { ProblemSink } from './import-problems.js';
import { SOURCE_RULES, type ImportTable } from './import-tables.js';
import { missingReference, type KeyIndex } from './key-index.js';
import { judgeHeld, newRecordProblem } from './stored-rows.js';

/** A table staged from a file, and the supplier codes its rows were the first to bring. */
export interface StagedTable {
  table: ImportTable;
  file: string;
  codes: string[];
}

/** Of the columns a row leaves out, the required ones, in the rules' order (checkRow's `absent`). */
const absentOf = (table: ImportTable, missing: readonly string[]): string[] =>
  SOURCE_RULES[table]
    .filter((rule) => rule.required && rule.name !== 'workspace_id' && missing.includes(rule.name))
    .map((rule) => rule.name);

export async function checkStaged(
  staging: Staging,
  tables: readonly StagedTable[],
  keys: KeyIndex,
  store: Pick<AdminWrites, 'storedRows'>,
  workspaceId: string,
  problems: ProblemSink,
): Promise<void> {
  await staging.stagedAll();
  const released = new Map<string, string>();
  for (const { table, file, codes } of tables) {
    // Every row of a page has a stored row: what it leaves out is never a problem of its own.
    for await (const page of staging.storedPages(table))
      judgeHeld(
        table,
        workspaceId,
        page.rows.map(({ line, row }) => ({ file, line, row, absent: [] })),
        page.stored,
        problems,
        table === 'suppliers' ? released : undefined,
      );
    for (const { line, missing } of await staging.newLeavingOut(table)) {
      const absent = absentOf(table, missing);
      if (absent.length > 0) problems.push({ file, line, message: newRecordProblem(absent) });
    }
    await keys.judgeCodes(store, codes, released);
    for (const rule of keys.referencesOf(table)) {
      const target = rule.references as ImportTable;
      for (const { line, id } of await staging.missingReferences(
        table,
        rule.name,
        target,
        workspaceId,
      ))
        problems.push({
          file,
          line,
          message: missingReference(rule.name, id, target, workspaceId),
        });
    }
  }
}
