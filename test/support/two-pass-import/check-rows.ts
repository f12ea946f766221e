/**
 * The check pass of an import: every row of every source file, streamed, through the row rules
 * (row-rules.ts), the upsert rules against what the store holds (stored-rows.ts) and the key
 * index (key-index.ts), then the codes and references against the store. Problems are pushed as
 * `file:line` as found; nothing is held in memory but a chunk of text and the problems.
 */
import type { AdminWrites } from '../../../src/store/store.js';
import type { ProblemSink } from '../../../src/importer/import-problems.js';
import { DELETIONS } from '../../../src/importer/import-tables.js';
import { KeyIndex } from './key-index.js';
import type { RowOptions } from '../../../src/importer/row-rules.js';
import { checkRow } from './row-rules-generic.js';
import { judgeStoredRows, type CheckedRow } from '../../../src/importer/stored-rows.js';
import { NotUtf8Error, streamSource, type SourceFile } from '../../../src/importer/source-files.js';

/** A source file and a way to read its text, in chunks, as many times as asked. */
export interface ImportSource extends SourceFile {
  text(): AsyncIterable<string>;
}

export async function checkSources(
  sources: readonly ImportSource[],
  options: Omit<RowOptions, 'format'>,
  store: Pick<AdminWrites, 'storedRows'>,
  problems: ProblemSink,
): Promise<void> {
  const { workspaceId } = options;
  const keys = new KeyIndex(workspaceId, problems);
  try {
    for (const source of sources) {
      const { file, table, format } = source;
      try {
        for await (const rows of streamSource(source, source.text(), problems)) {
          const batch: CheckedRow[] = [];
          for (const { line, values } of rows) {
            const checked = checkRow(table, values, { ...options, format });
            for (const message of checked.problems) problems.push({ file, line, message });
            const { row } = checked;
            if (table !== DELETIONS) keys.note(table, file, line, row);
            else if (typeof row.type === 'string' && typeof row.id === 'string')
              keys.noteDeletion(file, line, row.type, row.id);
            batch.push({ file, line, row, absent: checked.absent });
          }
          // Deletions are judged against the stored records as they apply (store/load/deletions.ts).
          if (table !== DELETIONS)
            await judgeStoredRows(store, table, workspaceId, batch, problems);
        }
      } catch (error) {
        if (!(error instanceof NotUtf8Error)) throw error;
        problems.push({ file, message: error.message });
      }
    }
    await keys.checkStored(store);
    if (keys.hasMissing) await reportMissingReferences(sources, options, keys);
  } finally {
    keys.close();
  }
}

/**
 * Reads the files once more, only when a reference is missing (the import fails anyway), to
 * name every row that makes one, in file and line order.
 */
async function reportMissingReferences(
  sources: readonly ImportSource[],
  options: Omit<RowOptions, 'format'>,
  keys: KeyIndex,
): Promise<void> {
  const ignored = { push: () => {} };
  for (const source of sources) {
    const { file, table, format } = source;
    try {
      if (table === DELETIONS) continue;
      for await (const rows of streamSource(source, source.text(), ignored))
        for (const { line, values } of rows)
          keys.missingReferences(
            table,
            file,
            line,
            checkRow(table, values, { ...options, format }).row,
          );
    } catch (error) {
      if (!(error instanceof NotUtf8Error)) throw error;
    }
  }
}
