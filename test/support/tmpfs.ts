import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small filesystem of its own for fault tests: a tmpfs mounted on a new folder, that a test
 * can fill to the last bytes (a full disk, as a database or a copy meets it) and grow again.
 * Mounting needs root (CI and the project's machines run as root); `canMount` tells.
 */
export interface SmallDisk {
  dir: string;
  /** Fills it until `leave` bytes are free (a file `filler` takes the rest). */
  fill(leave: number): void;
  /** Removes what `fill` wrote. */
  empty(): void;
  /** Gives it a new size, keeping what it holds. */
  resize(bytes: number): void;
  unmount(): void;
}

export function canMount(): boolean {
  return process.getuid?.() === 0;
}

export function mountSmallDisk(bytes: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0777`, 'tmpfs', dir]);
  const filler = join(dir, 'filler');
  return {
    dir,
    fill(leave) {
      const { bavail, bsize } = statfsSync(dir);
      let left = Number(bavail) * Number(bsize) - leave;
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(1 << 20);
      try {
        while (left > 0) left -= writeSync(fd, chunk, 0, Math.min(chunk.length, left));
      } finally {
        closeSync(fd);
      }
    },
    empty: () => rmSync(filler, { force: true }),
    resize: (size) => execFileSync('mount', ['-o', `remount,size=${size}`, dir]),
    unmount() {
      try {
        execFileSync('umount', ['-l', dir]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
