/** The I/O edge of reading an import directory: list it, read the source files as UTF-8. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceText } from './check-rows.js';
import type { ImportProblem } from './import-problems.js';
import { planSources } from './source-files.js';

export async function readImportDirectory(
  dir: string,
): Promise<{ names: string[]; files: SourceText[]; problems: ImportProblem[] }> {
  const names = await readdir(dir);
  const problems: ImportProblem[] = [];
  const regular: string[] = [];
  for (const name of names) {
    if ((await stat(join(dir, name))).isFile()) regular.push(name);
    else problems.push({ file: name, message: 'not a regular file' });
  }
  const plan = planSources(regular);
  for (const problem of plan.problems) problems.push(problem);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files: SourceText[] = [];
  for (const source of plan.sources) {
    const bytes = await readFile(join(dir, source.file));
    try {
      files.push({ source, text: decoder.decode(bytes) });
    } catch {
      problems.push({ file: source.file, message: 'not valid UTF-8 text' });
    }
  }
  return { names, files, problems };
}
