/**
 * The check pass of an import: every row of every source file, streamed, through the row rules
 * (row-rules.ts) and the key index (key-index.ts), then the keys against the store. Problems are
 * pushed as `file:line` as found; nothing is held in memory but a chunk of text and the problems.
 */
import type { AdminWrites } from '../store/store.js';
import type { ProblemSink } from './import-problems.js';
import { KeyIndex } from './key-index.js';
import { checkRow } from './row-rules.js';
import { NotUtf8Error, streamSource, type SourceFile } from './source-files.js';

/** A source file and a way to read its text, in chunks, as many times as asked. */
export interface ImportSource extends SourceFile {
  text(): AsyncIterable<string>;
}

export async function checkSources(
  sources: readonly ImportSource[],
  workspaceId: string,
  store: Pick<AdminWrites, 'storedRows'>,
  problems: ProblemSink,
): Promise<void> {
  const keys = new KeyIndex(workspaceId, problems);
  try {
    for (const source of sources) {
      const { file, table, format } = source;
      try {
        for await (const rows of streamSource(source, source.text(), problems)) {
          for (const { line, values } of rows) {
            const checked = checkRow(table, values, { workspaceId, format });
            for (const message of checked.problems) problems.push({ file, line, message });
            keys.note(table, file, line, checked.row);
          }
        }
      } catch (error) {
        if (!(error instanceof NotUtf8Error)) throw error;
        problems.push({ file, message: error.message });
      }
    }
    await keys.checkStored(store);
  } finally {
    keys.close();
  }
}
