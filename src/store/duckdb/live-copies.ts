/**
 * The files behind a server's columnar copy: its live copy opened from the newest base of the
 * current epoch (a base written first when there is none, one process at a time), and a live
 * copy published as a base (facts-files.ts names them all).
 */
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import type { FactSource } from '../store.js';
import { buildColumnarFacts } from './build-facts.js';
import { DuckdbFacts, type DuckdbSettings } from './duckdb-facts.js';
import {
  basePath,
  livePath,
  lockBase,
  newestBase,
  partialPath,
  removeStale,
} from './facts-files.js';

export interface LiveCopyOptions extends DuckdbSettings {
  dir: string;
  /** Write a base when none fits (serve); false: only copy one that exists. */
  build?: boolean;
  log?: (message: string, failure?: unknown) => void;
}

/**
 * Removes a copy, its write-ahead log and DuckDB's folder of spilled data (`.tmp`: a query larger
 * than the memory limit spills there); a folder that is gone or replaced is no error here.
 */
export function removeCopy(path: string): void {
  for (const file of [path, `${path}.wal`, `${path}.tmp`])
    try {
      rmSync(file, { force: true, recursive: true });
    } catch {
      // Nothing to remove where the folder was.
    }
}

/**
 * A live copy opened from the newest base of the current epoch (`fresh`: one of the current
 * version, written now when missing), or null when there is none to open yet (another process is
 * writing it, or writing is off).
 */
export async function openLiveCopy(
  rows: FactSource,
  options: LiveCopyOptions,
  connections: number,
  fresh: boolean,
): Promise<DuckdbFacts | null> {
  const { dir } = options;
  mkdirSync(dir, { recursive: true });
  const now = await rows.dataVersion();
  let base = fresh ? null : newestBase(dir, now.epoch, now.version);
  if (!base || (fresh && base.version < now.version)) {
    if (options.build === false) return null;
    const release = lockBase(dir, now.epoch);
    if (!release) return null;
    try {
      const built = await buildColumnarFacts(rows, dir, options);
      options.log?.(`columnar report facts written: ${built.path} in ${built.ms} ms`);
    } finally {
      release();
    }
    base = newestBase(dir, now.epoch, Number.MAX_SAFE_INTEGER);
    if (!base) return null;
  }
  const path = livePath(dir);
  try {
    copyFileSync(base.path, path);
  } catch (error) {
    removeCopy(path);
    throw error;
  }
  try {
    const facts = await DuckdbFacts.open(path, connections, options);
    options.log?.(`columnar report facts opened: ${path} (from ${base.path})`);
    return facts;
  } catch (error) {
    removeCopy(path);
    // A base DuckDB cannot open (damaged, truncated) is removed, so the next attempt writes a
    // new one; one it opened but could not use for want of memory is kept.
    if (!/out of memory/i.test((error as Error).message ?? '')) removeCopy(base.path);
    throw error;
  }
}

/**
 * Makes the live copy a base (checkpointed, copied, renamed into place): a server starting later,
 * or this one after a failure, then patches little instead of writing a whole copy. Returns the
 * base's path; a failure leaves the older base and nothing partial.
 */
export async function publishBase(live: DuckdbFacts, dir: string): Promise<string> {
  const partial = partialPath(dir, 'base');
  try {
    await live.checkpoint();
    copyFileSync(live.path, partial);
    const path = basePath(dir, live.version);
    renameSync(partial, path);
    removeStale(dir, path);
    return path;
  } catch (error) {
    removeCopy(partial);
    throw error;
  }
}
