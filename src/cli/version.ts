import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version in the package's package.json, read when asked: the nearest package.json above
 * this module, which is the package's own whether it runs compiled (dist/src/cli/), from
 * source (src/cli/, tsx) or installed (node_modules/vms-read/dist/src/cli/). Read rather than
 * imported, so the version is never a copy that a build could leave stale.
 */
export function packageVersion(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    if (existsSync(path))
      return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) throw new Error('package.json not found above the vms-read module');
  }
}
