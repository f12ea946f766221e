// Bundles the compiled command (dist/src/cli/dispatch.js, what `vms-read` runs) and the three
// worker threads' files into dist/bundle/cli/, where dist/src/cli/main.js finds them. A server
// started from the compiled files resolves about 2,000 ES modules before it listens (TypeBox's
// alone are 679 files, oidc-provider's 183): read, resolved and linked one by one, that is a
// third of its start. The bundle is some sixty files, and each command's code is still loaded
// only when it runs (esbuild's splitting keeps the dispatcher's dynamic imports as chunks).
//
// Outside the bundle: the native modules (better-sqlite3, DuckDB's bindings), pg's optional
// native binding, and pino (it starts its transports' workers from files beside its own). The
// bundle sits two folders below dist/, like the compiled modules it is made of, so the paths they
// compute from their own address (`../../web/`, the worker files `./…-worker.js` beside them)
// stay true.
//
// Rebuilt only when one of its inputs (esbuild's list of every file it read) changed since.
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const CLI_BUNDLE = 'dist/bundle/cli';
const INPUTS = join(CLI_BUNDLE, 'inputs.json');

/** What is bundled: the command's entry, and each worker thread's file (started by its path). */
const ENTRIES = {
  dispatch: 'dist/src/cli/dispatch.js',
  'side-file-writer': 'dist/src/store/sqlite/side-file-writer.js',
  'report-worker': 'dist/src/store/sqlite/report-worker.js',
  'chain-thread-entry': 'dist/src/audit/chain-thread-entry.js',
};

/** When `path` last changed; a file gone counts as changed. */
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : Infinity);

/** Whether the bundle is missing, or older than a file it was made of (or this script). */
function stale() {
  if (!existsSync(INPUTS)) return true;
  const built = mtime(INPUTS);
  const inputs = JSON.parse(readFileSync(INPUTS, 'utf8'));
  // npm writes a package's files with a fixed old time: its lock of what is installed tells.
  const own = ['scripts/build-cli.mjs', 'node_modules/.package-lock.json'].filter(existsSync);
  return [...inputs, ...own].some((path) => mtime(path) > built);
}

export async function buildCliBundle() {
  if (!existsSync(ENTRIES.dispatch)) return;
  if (!stale()) return;
  rmSync(CLI_BUNDLE, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(
    Object.entries(ENTRIES).filter(([, path]) => existsSync(path)),
  );
  const result = await build({
    entryPoints,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    outdir: CLI_BUNDLE,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    external: ['better-sqlite3', '@duckdb/node-bindings', 'pg-native', 'pino'],
    // The CommonJS packages inside an ES module bundle: `require` for what they load, and the
    // `__dirname` a few of them read (ioredis trims its error stacks with it).
    banner: {
      js: [
        "import { createRequire as __bundleRequire } from 'node:module';",
        "import { dirname as __bundleDirname } from 'node:path';",
        "import { fileURLToPath as __bundleFilePath } from 'node:url';",
        'const require = __bundleRequire(import.meta.url);',
        'const __filename = __bundleFilePath(import.meta.url);',
        'const __dirname = __bundleDirname(__filename);',
      ].join(' '),
    },
    sourcemap: true,
    // Without comments and indentation: V8 keeps every loaded file's source text, and a file
    // with one character past ASCII (a comment's §) is kept at two bytes a character, so the
    // bundle's 6.8 MB were 12.9 MB of each isolate's heap; now 4.8 MB (issue 59). Names are
    // kept, so stack traces still name their functions (and the source maps place them).
    minifyWhitespace: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  // Written last: a bundle cut short has no list of inputs, and is made again next time.
  writeFileSync(INPUTS, JSON.stringify(Object.keys(result.metafile.inputs)));
}
