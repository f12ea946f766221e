/**
 * The files of a database's columnar copies, in one folder (`<file>.facts` beside a SQLite file,
 * or VMS_READ_FACTS_DIR):
 *
 * - `base-<epoch>-<version>.duckdb`: a whole copy at one data version, written once (by `seed`,
 *   `facts refresh`, or a server that found none it could patch) and never changed after: what a
 *   server starts from. Only the newest is kept.
 * - `live-<host>-<pid>-<n>.duckdb`: a server's own copy, a base copied and then patched by that
 *   process alone (DuckDB lets one process write a file); removed when the server closes, or by
 *   the next process on the host that writes a base once its process is gone (a live copy of
 *   another host is left to that host).
 * - `*.partial` (and `.csv`, `.wal` beside them): being written; renamed into place when whole.
 * - `base-<epoch>.lock`: a base is being written by the process it names; others wait for it.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { ABANDONED_MS, age, ownMark, processGone } from '../process-marks.js';
import type { DataVersion } from '../store.js';

export { ownMark };

export function basePath(dir: string, version: DataVersion): string {
  return join(dir, `base-${version.epoch}-${version.version}.duckdb`);
}

/** A new name for this process's live copy. */
export function livePath(dir: string): string {
  return join(dir, `live-${ownMark()}-${randomBytes(4).toString('hex')}.duckdb`);
}

/** A new name for a file being written by this process. */
export function partialPath(dir: string, name: string): string {
  return join(dir, `${name}.${ownMark()}-${randomBytes(4).toString('hex')}.partial`);
}

/** The newest base of `epoch` holding at most `atMost`, or null. */
export function newestBase(
  dir: string,
  epoch: string,
  atMost: number,
): { path: string; version: number } | null {
  let best: { path: string; version: number } | null = null;
  for (const name of safeList(dir)) {
    const match = /^base-([0-9a-z]+)-(\d+)\.duckdb$/.exec(name);
    if (!match || match[1] !== epoch) continue;
    const version = Number(match[2]);
    if (version <= atMost && (!best || version > best.version))
      best = { path: join(dir, name), version };
  }
  return best;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A base's epoch and version, from its name; null for any other file. */
function baseOf(name: string): { epoch: string; version: number } | null {
  const match = /^base-([0-9a-z]+)-(\d+)\.duckdb(\.wal)?$/.exec(name);
  return match ? { epoch: match[1], version: Number(match[2]) } : null;
}

/**
 * Removes what no one needs: bases superseded by `keep` (of its epoch and an earlier version, or
 * of another epoch and written before it: a base a refresh writes meanwhile stays; a process
 * copying a removed base keeps reading it), and live copies, partial files and locks whose
 * process is gone or that were abandoned.
 */
export function removeStale(dir: string, keep: string | null): void {
  const kept = keep === null ? null : baseOf(basename(keep));
  const keptAt = keep === null ? 0 : (statSync(keep, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  for (const name of safeList(dir)) {
    const path = join(dir, name);
    if (path === keep) continue;
    const other = baseOf(name);
    const base =
      kept !== null &&
      other !== null &&
      (other.epoch === kept.epoch
        ? other.version < kept.version
        : (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < keptAt);
    // A live copy may sit unchanged for hours while its server reads it: only its process's end frees it.
    const live = name.startsWith('live-') && processGone(name);
    const writing = name.includes('.partial') || name.endsWith('.lock');
    const gone = name.endsWith('.lock') ? lockGone(path) : processGone(name);
    if (base || live || (writing && (gone || age(path) > ABANDONED_MS)))
      rmSync(path, { force: true, recursive: true });
  }
}

/** Names the process holding a lock file inside it: `<host>-<pid>`. */
function lockGone(path: string): boolean {
  try {
    return processGone(`${readFileSync(path, 'utf8').trim()}-`);
  } catch {
    return false;
  }
}

/**
 * Takes the lock on writing a base of `epoch`: true when taken (release it with the returned
 * function), false when another live process holds it.
 */
export function lockBase(dir: string, epoch: string): (() => void) | null {
  const path = join(dir, `base-${epoch}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, ownMark());
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!lockGone(path) && age(path) <= ABANDONED_MS) return null;
      rmSync(path, { force: true });
    }
  }
  return null;
}
