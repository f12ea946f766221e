/** The I/O edge of reading an import directory: list it, stream each source file as UTF-8 text. */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportProblem } from './import-problems.js';
import { NotUtf8Error, planSources, type SourceFile } from './source-files.js';

export interface ListedSource extends SourceFile {
  path: string;
}

/** The directory's names, its import sources in loading order, and the names that are not. */
export async function listImportDirectory(
  dir: string,
): Promise<{ names: string[]; sources: ListedSource[]; problems: ImportProblem[] }> {
  const names = await readdir(dir);
  const problems: ImportProblem[] = [];
  const regular: string[] = [];
  for (const name of names) {
    if ((await stat(join(dir, name))).isFile()) regular.push(name);
    else problems.push({ file: name, message: 'not a regular file' });
  }
  const plan = planSources(regular);
  for (const problem of plan.problems) problems.push(problem);
  return {
    names,
    sources: plan.sources.map((source) => ({ ...source, path: join(dir, source.file) })),
    problems,
  };
}

/**
 * Bytes read at a time: small, so few rows are alive at once across the awaits of a load (at
 * 1 MB, chunks of rows outlived young-generation collections and grew the heap by 100 MB).
 */
export const CHUNK_BYTES = 1 << 16;

/**
 * A file's text, decoded as UTF-8 a chunk at a time (a character split between chunks is kept
 * whole), without a leading byte-order mark; throws NotUtf8Error at the first invalid byte.
 */
export async function* sourceText(path: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const decode = (bytes?: Buffer) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw new NotUtf8Error();
    }
  };
  for await (const bytes of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    const text = decode(bytes as Buffer);
    if (text) yield text;
  }
  const rest = decode();
  if (rest) yield rest;
}
