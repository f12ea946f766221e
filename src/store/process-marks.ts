/**
 * Files and folders a process leaves behind when it dies (a `kill -9`, a crash) carry its mark,
 * `<host>-<pid>`, in their names, so the next process can tell a dead one's leftovers from a live
 * one's work: the columnar copies' live and partial files (duckdb/facts-files.ts) and the
 * import's scratch folders (importer/key-index.ts).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

const HOST = hostname().replace(/[^A-Za-z0-9_.]/g, '_');

/** A leftover untouched this long is abandoned whatever its process (another host's, say). */
export const ABANDONED_MS = 60 * 60 * 1000;

/** This process's mark in the names of the files it writes: host and pid. */
export function ownMark(): string {
  return `${HOST}-${process.pid}`;
}

/** True when the process a name marks is gone: on this host, no such pid. */
export function processGone(name: string): boolean {
  const match = new RegExp(`[-.]${HOST.replace(/\./g, '\\.')}-(\\d+)-`).exec(`-${name}`);
  if (!match) return false;
  const pid = Number(match[1]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** How long ago a path was last changed, in ms (0 when it is gone). */
export function age(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? Date.now() - stat.mtimeMs : 0;
}

/**
 * Removes the entries of `dir` named `prefix…` that a dead process of this host left, or that
 * no one touched for an hour (another host's, or named before marks were). Never throws: a
 * leftover another process removes meanwhile, or cannot be removed, is left.
 */
export function removeLeftovers(dir: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (!processGone(name) && age(path) <= ABANDONED_MS) continue;
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // in use, or not ours to remove: left as it is
    }
  }
}
